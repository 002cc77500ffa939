import ABCalibrationWork
import StressBenchCLI

// The new build of the calibration: `_ab-work` does 2 step(s) more per
// operation than in ab-calibration-base (scripts/ab-calibration.sh).
enum Plus2: ExtraSteps { static let steps = 2 }
StressBenchMain.main(registry: CalibrationBuild.registry(Plus2.self))
