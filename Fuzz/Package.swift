// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for StepKit. Build and run with `./run.sh TARGET SECONDS`
// (it adds `-sanitize=fuzzer,address`); each target is one executable below
// with a seed corpus in corpus/<name>/. To add a target, add one line to
// `fuzzTargets` and a folder Sources/<Target>/ holding the test function and a
// main.swift that hands it to libFuzzer's driver (see Sources/FuzzZip).
let fuzzTargets: [(name: String, product: String)] = [
  ("FuzzZip", "HealthExport"),
  ("FuzzXML", "HealthExport"),
  ("FuzzParallel", "HealthExport"),
  // The engine against the reference count of the tests; its sources link
  // Tests/StepKitCoreTests/Reference, so that both check the same thing.
  ("FuzzTally", "StepKitCore"),
]

let package = Package(
  name: "StepKitFuzz",
  dependencies: [.package(name: "StepKit", path: "..")],
  targets: [
    // Declares libFuzzer's `LLVMFuzzerRunDriver`.
    .target(name: "CFuzzerDriver")
  ]
    + fuzzTargets.map { target in
      .executableTarget(
        name: target.name,
        dependencies: ["CFuzzerDriver", .product(name: target.product, package: "StepKit")],
        swiftSettings: [.swiftLanguageMode(.v6)]
      )
    }
)
