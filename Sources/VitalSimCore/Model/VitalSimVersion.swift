/// The version of VitalSim (written into evidence bundles and shown by `vitalsim --version`).
public enum VitalSimVersion {
    /// The version of VitalSim.
    public static let current = "0.4.0"
}
