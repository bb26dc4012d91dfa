import Testing
import VitalSimCore

/// The two-byte set of reading kinds a run keeps per request.
struct VitalKindSetTests {
    @Test func holdsEachKindOnceInCatalogueOrder() {
        var set = VitalKindSet()
        #expect(set.isEmpty && set.first == nil)
        for kind in [VitalKind.equipment, .heartRate, .equipment, .dailySummary] { set.insert(kind) }
        #expect(Array(set) == [.heartRate, .dailySummary, .equipment])
        #expect(set.first == .heartRate && set.contains(.equipment) && !set.contains(.glucose))
        var other = VitalKindSet([.glucose])
        other.formUnion(set)
        #expect(Array(other) == [.heartRate, .glucose, .dailySummary, .equipment])
        #expect(Array(VitalKindSet(VitalKind.allCases)) == VitalKind.allCases)
    }
}
