// swift-tools-version: 6.1
import PackageDescription

// The export generator and the release benchmarks, a package of their own so that StepKit's
// manifest lists none of them (as swift-collections keeps its benchmarks): `swift build` and
// `swift test` of StepKit build no benchmark, and an app that adds StepKit resolves none.
//
//   swift build -c release --package-path Benchmarks --product export-generator
//   swift run -c release --package-path Benchmarks core-benchmark
//   swift build -c release --package-path Benchmarks --traits ISAL --product zip-benchmark
//
// The traits are StepKit's, passed on to it: `--traits ISAL` builds HealthExport with ISA-L and
// lets zip-benchmark time ISA-L's bare loop too.
let stepKitCore = Target.Dependency.product(name: "StepKitCore", package: "StepKit")
let healthExport = Target.Dependency.product(name: "HealthExport", package: "StepKit")

let package = Package(
  name: "StepKitBenchmarks",
  platforms: [.macOS(.v13)],
  traits: [
    .trait(
      name: "ISAL", description: "Build StepKit with its ISAL trait and time ISA-L's bare inflate loop."),
    .trait(
      name: "LIBDEFLATE", description: "Build StepKit with its LIBDEFLATE trait and time libdeflate's CRC-32."
    ),
  ],
  dependencies: [
    .package(
      name: "StepKit", path: "..",
      traits: [
        .trait(name: "ISAL", condition: .when(traits: ["ISAL"])),
        .trait(name: "LIBDEFLATE", condition: .when(traits: ["LIBDEFLATE"])),
      ])
  ],
  targets: [
    // `export-generator`: writes deterministic, realistic Apple Health exports for the scripts,
    // the demo and the benchmarks. Its model is StepKit's test-support target, whose folder
    // ExportGenerator/Model links to (Tests/ExportGenerator), so the command and the tests write
    // the same exports. HealthExport is a dependency for the zlib module (CZlib) the model's zip
    // writer imports; SwiftPM lets a package use another's system library only that way.
    .executableTarget(
      name: "export-generator",
      dependencies: [healthExport],
      path: "ExportGenerator"),
    // What the benchmarks share: peak memory measured one way.
    .target(name: "BenchmarkSupport", path: "Support"),
    // The engine alone: append, merge and buckets on millions of samples.
    .executableTarget(
      name: "core-benchmark",
      dependencies: ["BenchmarkSupport", stepKitCore],
      path: "CoreBenchmark"),
    // The export reader (run-benchmarks.sh compares it with peers).
    .executableTarget(
      name: "reader-benchmark", dependencies: ["BenchmarkSupport", healthExport, stepKitCore],
      path: "ReaderBenchmark"),
    // Reading export.zip: the inflate pipeline against a bare zlib (and with ISAL, ISA-L) loop.
    // CZlib, CISAL and CLibdeflate come with HealthExport, built with the same traits.
    .executableTarget(
      name: "zip-benchmark", dependencies: ["BenchmarkSupport", healthExport, stepKitCore],
      path: "ZipBenchmark"),
  ]
)

// Swift 6 language mode and strict concurrency for every target, as in StepKit.
for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.swiftLanguageMode(.v6))
  target.swiftSettings = settings
}
