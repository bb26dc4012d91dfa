import ArgumentParser
import Bluetooth
import VitalSimCore

extension VitalSim {
    /// `vitalsim decode CHARACTERISTIC HEX`
    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode a GATT characteristic value and print its fields as JSON.",
            discussion:
                "CHARACTERISTIC is a UUID such as 0x2A37 or a name: \(CharacteristicRegistry.all.map { $0.name }.joined(separator: ", ")). Exits 2 on malformed bytes, naming the byte offset."
        )
        @Argument(help: "UUID (0x2A37) or name (heart-rate-measurement).") var characteristic: String
        @Argument(help: "Value bytes in hex, e.g. 164852035c03 or \"16 48 52 03 5C 03\".") var hex: [String]

        func run() throws {
            do {
                let type = try CharacteristicRegistry.lookup(characteristic)
                guard let bytes = Hex.decode(hex.joined()) else {
                    throw CommandFailure.input("'\(hex.joined(separator: " "))' is not hex bytes")
                }
                print(try CharacteristicRegistry.decodeToJSON(type, bytes).pretty())
            } catch let gattError as GATTError {
                throw CommandFailure.input(gattError.description)
            }
        }
    }

    /// `vitalsim encode CHARACTERISTIC --field value…`
    struct Encode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encode a GATT characteristic value from named fields and print it as hex.",
            discussion: """
                Field names are those `vitalsim decode` prints, in camelCase or kebab-case. Examples:
                  vitalsim encode heart-rate-measurement --heart-rate 72 --sensor-contact detected --rr-intervals 850,860
                  vitalsim encode 0x2A35 --systolic 120 --diastolic 80 --mean-arterial-pressure 93 --pulse-rate 72
                  vitalsim encode glucose-measurement --sequence-number 2 --base-time 2024-05-17T10:30:00 --concentration 0.0055 --unit mol/L
                """
        )
        @Argument(help: "UUID (0x2A37) or name (heart-rate-measurement).") var characteristic: String
        @Argument(parsing: .allUnrecognized, help: "Fields as --name value pairs.") var fields: [String] = []

        func run() throws {
            var values: [String: String] = [:]
            var index = 0
            while index < fields.count {
                let field = fields[index]
                guard field.hasPrefix("--") else {
                    throw CommandFailure.input("expected --field value, got '\(field)'")
                }
                var name = String(field.dropFirst(2))
                var value: String
                if let eq = name.firstIndex(of: "=") {
                    value = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                } else {
                    guard index + 1 < fields.count else {
                        throw CommandFailure.input("--\(name) needs a value")
                    }
                    value = fields[index + 1]
                    index += 1
                }
                values[name] = value
                index += 1
            }
            do {
                let type = try CharacteristicRegistry.lookup(characteristic)
                print(Hex.encode(try CharacteristicRegistry.encode(type, fields: values)))
            } catch {
                throw CommandFailure.input(error.description)
            }
        }
    }
}
