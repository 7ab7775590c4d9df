import Testing

@testable import StepKitCore

@Suite("Cumulative types and their units")
struct CumulativeTypeTests {
  @Test("Names: the identifier, its short form, or an everyday alias, any case")
  func names() {
    #expect(CumulativeType(named: "activeEnergyBurned") == .activeEnergyBurned)
    #expect(CumulativeType(named: "HKQuantityTypeIdentifierActiveEnergyBurned") == .activeEnergyBurned)
    #expect(CumulativeType(named: "FLIGHTSCLIMBED") == .flightsClimbed)
    #expect(CumulativeType(named: "steps") == .stepCount)
    #expect(CumulativeType(named: "distanceCycling")?.unit == .metres)
    #expect(CumulativeType(named: "appleExerciseTime")?.unit == .minutes)
    #expect(
      CumulativeType(identifier: "HKQuantityTypeIdentifierUVExposure", unit: .count).shortName == "UVExposure"
    )
    #expect(CumulativeType(named: "heartRate") == nil)
    #expect(CumulativeType(identifier: "HKQuantityTypeIdentifierHeartRate") == nil)
    #expect(CumulativeType.activeEnergyBurned.shortName == "activeEnergyBurned")
    #expect(Set(CumulativeType.known.map(\.identifier)).count == CumulativeType.known.count)
  }

  @Test("Conversions to the canonical unit, from the factors' definitions")
  func conversions() {
    #expect(CanonicalUnit.kilocalories.factor("kcal") == 1)
    #expect(CanonicalUnit.kilocalories.factor("Cal") == 1)
    #expect(abs(CanonicalUnit.kilocalories.factor("kJ")! * 418.4 - 100) < 1e-12)
    #expect(abs(CanonicalUnit.kilocalories.factor("J")! * 4184 - 1) < 1e-12)
    #expect(CanonicalUnit.kilocalories.factor("cal") == 0.001)
    #expect(CanonicalUnit.kilocalories.factor("count") == nil)
    #expect(CanonicalUnit.metres.factor("mi") == 1609.344)
    #expect(CanonicalUnit.metres.factor("km") == 1000)
    #expect(CanonicalUnit.count.factor("count") == 1)
    #expect(CanonicalUnit.count.factor("kcal") == nil)
    #expect(CanonicalUnit.minutes.factor("hr") == 60)
    #expect(abs(CanonicalUnit.minutes.factor("s")! * 90 - 1.5) < 1e-12)
    #expect(CanonicalUnit.grams.factor("mg") == 0.001)
    #expect(CanonicalUnit.millilitres.factor("L") == 1000)
    #expect(CanonicalUnit.internationalUnits.factor("IU") == 1)
    #expect(CanonicalUnit.internationalUnits.factor("mg") == nil)
    #expect(CanonicalUnit.grams.factor("IU") == nil)
    #expect(CumulativeType(named: "insulinDelivery")?.unit == .internationalUnits)
  }

  /// HealthKit's discrete quantity types that are counts, times or energies like cumulative
  /// ones, from the comments of Apple's `HKTypeIdentifiers.h` ("Discrete"): none of them is
  /// summed over a day.
  @Test(
    "Discrete types that look cumulative are not summed",
    arguments: [
      "UVExposure", "BodyMassIndex", "BloodAlcoholContent", "HeartRate", "RestingHeartRate", "BodyMass",
      "AppleSleepingBreathingDisturbances",
    ])
  func discreteTypes(name: String) {
    #expect(CumulativeType(named: name) == nil)
    #expect(CumulativeType(identifier: "HKQuantityTypeIdentifier" + name) == nil)
  }
}
