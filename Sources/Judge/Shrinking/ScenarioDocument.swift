import Foundation
import VitalSimCore
import Yams

/// A scenario file as the parts `vitalsim shrink` can remove: patients, their devices and timeline
/// entries, and the duration. Everything else (seed, start, baselines, meals, limits, device keys)
/// is kept as written; a candidate is the file's YAML with only the chosen parts.
package struct ScenarioDocument {
    /// A device of a patient, by position.
    package struct DeviceIndex: Hashable, Sendable, Comparable {
        package var patient: Int
        package var device: Int
        package init(patient: Int, device: Int) {
            self.patient = patient
            self.device = device
        }
        package static func < (a: DeviceIndex, b: DeviceIndex) -> Bool { (a.patient, a.device) < (b.patient, b.device) }
    }

    /// Which parts a candidate keeps.
    package struct Selection: Hashable, Sendable {
        package var patients: [Int]
        package var devices: [DeviceIndex]
        package var timeline: [Int]
        package var duration: VirtualDuration
    }

    /// The scenario's name.
    package let name: String
    /// Each patient's id and device ids, in file order.
    package let patients: [(id: String, devices: [String])]
    /// What each timeline entry refers to (`patient` or `device`), in file order.
    package let timeline: [(patient: String?, device: String?)]
    /// The scenario's duration.
    package let duration: VirtualDuration
    let root: Node.Mapping

    /// The document of scenario `text`, which must load (its problems are thrown as the loader reports them).
    package init(text: String, file: String) throws(ScenarioLoadError) {
        let scenario = try ScenarioLoader.parse(text, file: file)
        guard let root = try ScenarioLoader.compose(text, file: file).mapping else {
            throw ScenarioLoadError(issues: [
                ScenarioIssue(file: file, line: 1, column: 1, field: "", message: "not a mapping")
            ])
        }
        self.root = ScenarioDocument.absoluteTraces(root, file: file)
        name = scenario.name
        duration = scenario.duration
        patients = (root["patients"]?.sequence ?? []).map { p in
            let devices = (p.mapping?["devices"]?.sequence ?? []).map { $0.mapping?["id"]?.string ?? "" }
            return (p.mapping?["id"]?.string ?? "", devices)
        }
        timeline = (root["timeline"]?.sequence ?? []).map {
            ($0.mapping?["patient"]?.string, $0.mapping?["device"]?.string)
        }
    }

    /// `root` with each device's `trace.file` made absolute, so that a candidate written elsewhere
    /// still finds its recordings.
    static func absoluteTraces(_ root: Node.Mapping, file: String) -> Node.Mapping {
        let folder = (file as NSString).deletingLastPathComponent
        guard var patients = root["patients"]?.sequence else { return root }
        for p in patients.indices {
            guard var patient = patients[p].mapping, var devices = patient["devices"]?.sequence else { continue }
            for d in devices.indices {
                guard var device = devices[d].mapping, var trace = device["trace"]?.mapping,
                    let path = trace["file"]?.string,
                    !path.hasPrefix("/")
                else { continue }
                let relative = folder.isEmpty ? path : folder + "/" + path
                let absolute =
                    relative.hasPrefix("/") ? relative : FileManager.default.currentDirectoryPath + "/" + relative
                trace["file"] = Node(absolute, Tag(.str), .doubleQuoted)
                device["trace"] = .mapping(trace)
                devices[d] = .mapping(device)
            }
            patient["devices"] = .sequence(devices)
            patients[p] = .mapping(patient)
        }
        var out = root
        out["patients"] = .sequence(patients)
        return out
    }

    /// Everything: the selection of the scenario as written.
    package var whole: Selection {
        Selection(
            patients: Array(patients.indices),
            devices: patients.indices.flatMap { p in
                patients[p].devices.indices.map { DeviceIndex(patient: p, device: $0) }
            },
            timeline: Array(timeline.indices),
            duration: duration
        )
    }

    /// The timeline entries whose patient or device `selection` keeps.
    package func applicableTimeline(_ selection: Selection) -> [Int] {
        let (patientIDs, deviceIDs) = kept(selection)
        return selection.timeline.filter { i in
            let entry = timeline[i]
            if let patient = entry.patient { return patientIDs.contains(patient) }
            if let device = entry.device { return deviceIDs.contains(device) }
            return true
        }
    }

    /// `2 patient(s), 3 device(s), 5 timeline entries, 6h`: what a selection keeps.
    package func describe(_ selection: Selection) -> String {
        let patientSet = Set(selection.patients)
        let devices = selection.devices.filter { patientSet.contains($0.patient) }.count
        return
            "\(selection.patients.count) patient(s), \(devices) device(s), \(applicableTimeline(selection).count) timeline entries, \(selection.duration)"
    }

    func kept(_ selection: Selection) -> (patients: Set<String>, devices: Set<String>) {
        let patientSet = Set(selection.patients)
        let ids = Set(selection.patients.map { patients[$0].id })
        let devices = Set(
            selection.devices.filter { patientSet.contains($0.patient) }.map { patients[$0.patient].devices[$0.device] }
        )
        return (ids, devices)
    }

    /// The scenario file of `selection`, named `name` (its golden file is `name`'s), with `comment`
    /// as its description; timeline entries of removed patients or devices go with them.
    package func text(_ selection: Selection, name: String, description: String) -> String {
        var out = root
        out["name"] = Node(name, Tag(.str), .doubleQuoted)
        out["description"] = Node(description, Tag(.str), .literal)
        out["golden"] = nil
        out["duration"] = Node(selection.duration.description)
        let devices = Set(selection.devices)
        let patientNodes = root["patients"]?.sequence ?? []
        var keptPatients: [Node] = []
        for p in selection.patients.sorted() {
            guard var patient = patientNodes[p].mapping else { continue }
            let deviceNodes = patient["devices"]?.sequence ?? []
            let keptDevices = deviceNodes.indices.filter { devices.contains(DeviceIndex(patient: p, device: $0)) }.map {
                deviceNodes[$0]
            }
            patient["devices"] = .sequence(Node.Sequence(keptDevices, Tag(.seq), .block))
            keptPatients.append(.mapping(patient))
        }
        out["patients"] = .sequence(Node.Sequence(keptPatients, Tag(.seq), .block))
        let entries = root["timeline"]?.sequence ?? []
        let timelineNodes = applicableTimeline(selection).sorted().map { entries[$0] }
        out["timeline"] = .sequence(Node.Sequence(timelineNodes, Tag(.seq), timelineNodes.isEmpty ? .flow : .block))
        return (try? Yams.serialize(node: .mapping(out), width: 100, allowUnicode: true, sortKeys: false)) ?? ""
    }
}
