// swift-tools-version: 6.0
import PackageDescription

let package = Package(
  name: "StepKit",
  platforms: [.iOS(.v15), .macOS(.v13), .watchOS(.v8)],
  products: [
    .library(name: "StepKitCore", targets: ["StepKitCore"]),
    .library(name: "HealthExport", targets: ["HealthExport"]),
    .executable(name: "stepkit", targets: ["stepkit"]),
  ],
  targets: [
    // The counting engine: pure Swift, Foundation only, no I/O. COUNTING.md lives here.
    .target(name: "StepKitCore"),
    .testTarget(name: "StepKitCoreTests", dependencies: ["StepKitCore"]),

    // System zlib (Debian zlib1g-dev; the SDK's libz on Apple platforms).
    .systemLibrary(
      name: "CZlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    // Reads Apple Health exports (export.zip / export.xml) as a stream.
    .target(name: "HealthExport", dependencies: ["StepKitCore", "CZlib"]),
    .testTarget(
      name: "HealthExportTests", dependencies: ["HealthExport", "CZlib", "export-generator"], resources: [.copy("Fixtures")]),
    // Writes deterministic, realistic Apple Health exports (export.xml / export.zip) for tests,
    // the demo and benchmarks.
    .executableTarget(name: "export-generator", dependencies: ["CZlib"], path: "Benchmarks/ExportGenerator"),
    // Release benchmark of the engine alone (not part of the tests).
    .executableTarget(
      name: "core-benchmark", dependencies: ["StepKitCore"], path: "Benchmarks/CoreBenchmark"),
    // Release benchmark of the export reader (Benchmarks/run-benchmarks.sh compares it with peers).
    .executableTarget(
      name: "reader-benchmark", dependencies: ["HealthExport", "StepKitCore"], path: "Benchmarks/ReaderBenchmark"),

    // System SQLite (Debian libsqlite3-dev; the SDK's libsqlite3 on Apple platforms).
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // The `stepkit` command: parses arguments, calls StepKitCore and HealthExport, prints.
    .executableTarget(
      name: "stepkit",
      dependencies: ["StepKitCore", "HealthExport", "CSQLite"],
      resources: [.copy("Resources/demo-export.xml")]
    ),
    // Unit tests of the parser and formatters, and end-to-end runs of the built binary
    // compared with golden files (STEPKIT_RECORD_GOLDEN=1 re-records them).
    .testTarget(
      name: "stepkitTests",
      dependencies: ["stepkit", "StepKitCore", "CSQLite"],
      exclude: ["Golden", "Fixtures"]
    ),
  ]
)

// Swift 6 language mode and strict concurrency for every target, set in one place.
for target in package.targets where target.type != .system {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  target.swiftSettings = settings
}
