import ABCalibrationWork
import StressBenchCLI

// The old build of the calibration: `_ab-work` does exactly `work` steps per
// operation (scripts/ab-calibration.sh).
StressBenchMain.main(registry: CalibrationBuild.registry(NoExtraSteps.self))
