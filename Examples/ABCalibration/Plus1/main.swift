import ABCalibrationWork
import StressBenchCLI

// The new build of the calibration: `_ab-work` does 1 step(s) more per
// operation than in ab-calibration-base (scripts/ab-calibration.sh).
enum Plus1: ExtraSteps { static let steps = 1 }
StressBenchMain.main(registry: CalibrationBuild.registry(Plus1.self))
