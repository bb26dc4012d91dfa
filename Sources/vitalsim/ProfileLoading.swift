import Foundation
import SUTProfile
import VitalSimCore

/// The SUT profile at `path` (nil without `--sut`); a profile that cannot be loaded is printed
/// with its file, line and key, and exits 2.
func loadProfile(_ path: String?) throws -> SUTProfile? {
    guard let path else { return nil }
    do throws(ScenarioLoadError) {
        return try SUTProfileLoader.load(path: path, environment: ProcessInfo.processInfo.environment)
    } catch {
        printError(error.description)
        throw ExitCodes.input
    }
}
