import Foundation
import Locking
import XCTest

/// The project's test virtual environment (`.venv-test`, made by `ci/setup-debian.sh`) with the
/// Python packages a test needs, installed when missing.
///
/// What is installed is read from the packages' metadata (`importlib.metadata`), not by importing
/// them: importing neurokit2 or hrv-analysis takes 5 CPU-seconds each (scipy, pandas, sklearn), and
/// the referee tests asked once per referee call, which cost CI minutes. A requirement met once is
/// not asked again in the same test process.
enum TestPython {
    static let venv = TestSupport.repositoryRoot + "/.venv-test"
    static let python = venv + "/bin/python"
    /// Requirements found installed by this process.
    private static let met = Locked<Set<String>>([])

    /// Reads pip requirements (`name==1.2.3`, `name<2.4`, `name>=1`, `name`) and exits 0 when
    /// every one is installed at a version it allows.
    static let checkScript = """
        import importlib.metadata as m, re, sys
        def parts(v):
            return tuple(int(x) for x in re.findall(r"\\d+", v)[:3])
        for requirement in sys.argv[1:]:
            name, op, want = re.match(r"([A-Za-z0-9_.\\-]+)\\s*(==|<=|>=|<|>)?\\s*(.*)", requirement).groups()
            try:
                have = m.version(name)
            except m.PackageNotFoundError:
                sys.exit(1)
            if op and not {"==": have == want, "<": parts(have) < parts(want), "<=": parts(have) <= parts(want),
                           ">": parts(have) > parts(want), ">=": parts(have) >= parts(want)}[op]:
                sys.exit(1)
        """

    /// The environment's python with every one of `requirements` (pip syntax) installed; skips the
    /// test when pip cannot install them (no network and not installed by the set-up script).
    static func with(_ requirements: [String]) throws -> String {
        let key = requirements.joined(separator: " ")
        if met.withLock({ $0.contains(key) }) { return python }
        if (try? TestSupport.run(python, ["-c", checkScript] + requirements))?.status != 0 {
            if !FileManager.default.isExecutableFile(atPath: python) {
                _ = try TestSupport.run("python3", ["-m", "venv", venv])
            }
            let pip = try TestSupport.run(venv + "/bin/pip", ["install", "-q"] + requirements)
            guard pip.status == 0 else { throw XCTSkip("cannot install \(key) from PyPI: \(pip.err)") }
        }
        met.withLock { _ = $0.insert(key) }
        return python
    }
}
