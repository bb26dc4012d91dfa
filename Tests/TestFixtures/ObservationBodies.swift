/// A generic observation for `POST /api/v1/observations`.
public func observationJSON(
    id: String,
    patient: String,
    device: String = "dev",
    kind: String,
    value: Double,
    unit: String,
    at time: String
) -> String {
    #"{"readingId": "\#(id)", "patientId": "\#(patient)", "deviceId": "\#(device)", "kind": "\#(kind)", "value": \#(value), "unit": "\#(unit)", "timestamp": "\#(time)"}"#
}

/// Request bodies of the reference contract that the in-process and the live tests both send.
public enum ObservationBodies {
    /// The read-back fixture: patient 701's readings, heart rate on three days and one blood
    /// pressure, as one batch and one single reading (posted in that order), and another patient's
    /// reading with the same id that must never be listed for 701.
    public static var readBack: (batch: String, single: String, otherPatient: String) {
        let heartRate = { (id: String, time: String, value: Double) in
            observationJSON(
                id: id,
                patient: "701",
                device: "hr-701",
                kind: "heart-rate",
                value: value,
                unit: "/min",
                at: time
            )
        }
        let pressure =
            #"{"readingId":"bp1","patientId":"701","deviceId":"cuff-701","kind":"blood-pressure","systolic":128,"diastolic":84,"unit":"mm[Hg]","timestamp":"2024-11-08T07:30:00.250Z"}"#
        let batch = [
            heartRate("h1", "2024-11-07T08:00:00Z", 72), heartRate("h2", "2024-11-07T23:59:59Z", 75.5),
            heartRate("h3", "2024-11-08T00:00:00Z", 80), pressure,
        ]
        let other = observationJSON(
            id: "h1",
            patient: "702",
            device: "hr",
            kind: "heart-rate",
            value: 99,
            unit: "/min",
            at: "2024-11-07T08:00:00Z"
        )
        return ("[" + batch.joined(separator: ",") + "]", heartRate("h4", "2024-12-01T10:00:00Z", 64), other)
    }
}
