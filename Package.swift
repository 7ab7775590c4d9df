// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "StepKit",
  platforms: [.iOS(.v15), .macOS(.v13), .watchOS(.v8)],
  products: [
    .library(name: "StepKitCore", targets: ["StepKitCore"]),
    .library(name: "HealthExport", targets: ["HealthExport"]),
    .library(name: "StepKit", targets: ["StepKit"]),
    .library(name: "StepKitUI", targets: ["StepKitUI"]),
    .executable(name: "stepkit", targets: ["stepkit"]),
  ],
  traits: [
    // `swift build --traits ISAL`: inflate export.zip with Intel ISA-L on Linux
    // (Debian libisal-dev; Scripts/check-system-libraries.sh --isal installs it).
    // Off by default; zlib is the default everywhere and the only inflater on Apple platforms.
    .trait(
      name: "ISAL", description: "Inflate export.zip with Intel ISA-L (Linux, libisal-dev) instead of zlib."),
    // `swift build --traits LIBDEFLATE`: check export.zip's CRC-32 with libdeflate on Linux
    // (Debian libdeflate-dev; Scripts/check-system-libraries.sh --libdeflate installs it).
    // Off by default: the default build needs only what a Swift toolchain machine has (zlib, SQLite)
    // and checks the CRC-32 with the package's own (CCRC32: carry-less multiply or CRC instructions,
    // slicing-by-16 where the CPU has neither).
    .trait(
      name: "LIBDEFLATE",
      description:
        "Check export.zip's CRC-32 with libdeflate (Linux, libdeflate-dev) instead of the built-in one."),
  ],
  targets: [
    // The counting engine: pure Swift, Foundation only; its one I/O is the anonymous temporary file
    // that samples beyond the memory budget spill to. COUNTING.md lives here.
    .target(name: "StepKitCore"),
    .testTarget(name: "StepKitCoreTests", dependencies: ["StepKitCore"]),
    // Reads the libraries' sources and checks that each folder uses only the folders below it
    // (docs/READING.md, "Where the code lives"); it links none of them.
    .testTarget(name: "LayerTests"),

    // System zlib (Debian zlib1g-dev; the SDK's libz on Apple platforms).
    .systemLibrary(
      name: "CZlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    // System libdeflate (Debian libdeflate-dev), Linux with the LIBDEFLATE trait only: its CRC-32
    // uses the CPU's carry-less multiply (Apple's libz is fast already).
    .systemLibrary(
      name: "CLibdeflate",
      pkgConfig: "libdeflate",
      providers: [.apt(["libdeflate-dev"])]
    ),
    // System Intel ISA-L (Debian libisal-dev): igzip's raw inflate and CRC-32, with the ISAL trait.
    .systemLibrary(
      name: "CISAL",
      pkgConfig: "libisal",
      providers: [.apt(["libisal-dev"])]
    ),
    // CRC-32 with the CPU's carry-less multiply (x86-64) or CRC instructions (arm64): what
    // HealthExport checks export.zip entries with by default. Plain C, no library.
    .target(name: "CCRC32"),
    // Reads Apple Health exports (export.zip / export.xml) as a stream.
    .target(
      name: "HealthExport",
      dependencies: [
        "StepKitCore", "CZlib", "CCRC32",
        .target(name: "CLibdeflate", condition: .when(platforms: [.linux], traits: ["LIBDEFLATE"])),
        .target(name: "CISAL", condition: .when(platforms: [.linux], traits: ["ISAL"])),
      ]),
    .testTarget(
      name: "HealthExportTests", dependencies: ["HealthExport", "CZlib", "ExportGenerator"],
      resources: [.copy("Fixtures")]),
    // The model of real exports that the tests read: writes deterministic, realistic Apple Health
    // exports (export.xml / export.zip). Test support, in no product; the `export-generator`
    // command and the benchmarks are a package of their own (Benchmarks/Package.swift), so that
    // an app that adds StepKit resolves no benchmark target.
    .target(name: "ExportGenerator", dependencies: ["CZlib"], path: "Tests/ExportGenerator"),

    // Linux only: the subsets of HealthKit and CoreMotion the providers use,
    // with the same names and signatures, so the provider sources build and
    // are tested here. HealthKitStandIn merges sources with its own code, never StepKitCore's,
    // so that tests comparing StepKit with it can disagree.
    .target(name: "HealthKitStandIn"),
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
    // SwiftUI views over a StepCounter: today, history, access guidance. The views build where
    // SwiftUI exists; the state they show (State/) is plain Swift, tested on Linux.
    .target(name: "StepKitUI", dependencies: ["StepKit"]),
    .testTarget(name: "StepKitUITests", dependencies: ["StepKitUI"]),
    // The example app's code (Examples/StepCounterApp), a library target so that it is type-checked
    // with the libraries; an Xcode app target compiles the same files. Empty where SwiftUI is missing.
    .target(
      name: "StepKitExample", dependencies: ["StepKitUI"], path: "Examples/StepCounterApp",
      exclude: [
        "Info.plist", "StepCounterApp.entitlements", "en.lproj", "zh-Hans.lproj", "zh-Hant.lproj",
        "README.md",
      ]),
    // System SQLite (Debian libsqlite3-dev; the SDK's libsqlite3 on Apple platforms).
    .systemLibrary(
      name: "CSQLite",
      providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
    ),
    // The `stepkit` command: parses arguments, calls StepKitCore and HealthExport, prints; `doctor`'s
    // check of an app's Info.plist and entitlements is its own (it links no app library).
    .executableTarget(
      name: "stepkit",
      dependencies: ["StepKitCore", "HealthExport", "CSQLite"],
      resources: [.copy("Resources/demo-export.xml")]
    ),
    // Unit tests of the parser and formatters, and end-to-end runs of the built binary
    // compared with golden files (STEPKIT_RECORD_GOLDEN=1 re-records them).
    .testTarget(
      name: "stepkitTests",
      dependencies: ["stepkit", "StepKitCore", "StepKit", "CSQLite", "ExportGenerator"],
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
