import Foundation
import FuzzTargets

// Built by `ci/fuzz.sh` with `-sanitize=fuzzer,address -D FUZZING`: a libFuzzer binary whose target
// is chosen by the environment variable VITALSIM_FUZZ_TARGET (gatt, scenario, golden, sut-json,
// sut-gatt). Built plainly, it replays files: `vitalsim-fuzz TARGET FILE…` runs each file through
// the target once (a crash file libFuzzer wrote, or the seed corpus).

#if FUZZING
/// The target of this process, read once.
let fuzzTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["VITALSIM_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        fatalError("set VITALSIM_FUZZ_TARGET to one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return target
}()

/// libFuzzer's entry point.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    fuzzTarget.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

/// libFuzzer's driver, `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *, size_t))`.
typealias FuzzerDriver =
    @convention(c) (
        UnsafeMutablePointer<CInt>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt

/// SwiftPM links an executable with its `main` renamed to `vitalsim_fuzz_main`; this one hands the
/// process to libFuzzer's driver (found in the binary, where `-sanitize=fuzzer` linked it).
@_cdecl("vitalsim_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "LLVMFuzzerRunDriver") else {
        fatalError("LLVMFuzzerRunDriver is not in this binary; build it with -sanitize=fuzzer (ci/fuzz.sh)")
    }
    let driver = unsafeBitCast(symbol, to: FuzzerDriver.self)
    var count = argc
    var values = argv
    return driver(&count, &values, fuzzOneInput)
}
#else
/// Replays files through a target.
@main
struct FuzzReplay {
    static func main() {
        let args = CommandLine.arguments.dropFirst()
        guard let name = args.first, let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(
                Data(
                    "usage: vitalsim-fuzz TARGET FILE…  (TARGET: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))\n"
                        .utf8
                )
            )
            exit(2)
        }
        var accepted = 0
        for path in args.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            if target.run([UInt8](data)) { accepted += 1 }
        }
        print("\(name): \(args.count - 1) inputs, \(accepted) accepted")
    }
}
#endif
