// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "StepKit",
  platforms: [.iOS(.v15), .macOS(.v13), .watchOS(.v8)],
  products: [
    .library(name: "StepKitCore", targets: ["StepKitCore"]),
    .library(name: "StepKit", targets: ["StepKit"]),
  ],
  targets: [
    // The counting engine: pure Swift, Foundation only, no I/O. COUNTING.md lives here.
    .target(name: "StepKitCore"),
    .testTarget(name: "StepKitCoreTests", dependencies: ["StepKitCore"]),
    // Release benchmark of the engine alone (not part of the tests).
    .executableTarget(
      name: "core-benchmark", dependencies: ["StepKitCore"], path: "Benchmarks/CoreBenchmark"),

    // Linux only: the subsets of HealthKit and CoreMotion the providers use,
    // with the same names and signatures, so the provider sources build and
    // are tested here.
    .target(name: "HealthKitStandIn", dependencies: ["StepKitCore"]),
    .target(name: "CoreMotionStandIn"),
    // What an app links: StepCounter over HealthKit, CoreMotion and simulated sources.
    .target(
      name: "StepKit",
      dependencies: [
        "StepKitCore",
        .target(name: "HealthKitStandIn", condition: .when(platforms: [.linux])),
        .target(name: "CoreMotionStandIn", condition: .when(platforms: [.linux])),
      ]
    ),
    .testTarget(name: "StepKitTests", dependencies: ["StepKit"]),
  ]
)

// Swift 6 language mode and strict concurrency for every target, set in one place.
for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  target.swiftSettings = settings
}
