import Foundation
import StepKit
import Testing

@testable import stepkit

/// A temporary folder laid out like an Xcode app target.
struct AppFolder {
  let root: URL

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "stepkit-doctor-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  }

  @discardableResult
  func write(_ relative: String, _ plist: [String: Any], format: PropertyListSerialization.PropertyListFormat)
    throws
    -> String
  {
    let url = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let data = try PropertyListSerialization.data(fromPropertyList: plist, format: format, options: 0)
    try data.write(to: url)
    return url.path
  }

  @discardableResult
  func write(_ relative: String, text: String) throws -> String {
    let url = root.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  func remove() { try? FileManager.default.removeItem(at: root) }
}

@Suite("AppConfigurationCheck (stepkit doctor)")
struct AppConfigurationCheckTests {
  static var completeInfo: [String: Any] {
    [
      "CFBundleIdentifier": "com.example.steps",
      "NSHealthShareUsageDescription": "Shows your daily steps.",
      "NSHealthUpdateUsageDescription": "Saves your weight.",
      "NSMotionUsageDescription": "Counts steps when Health is unavailable.",
    ]
  }
  static var completeEntitlements: [String: Any] {
    [
      "com.apple.developer.healthkit": true,
      "com.apple.developer.healthkit.access": [String](),
      "com.apple.developer.healthkit.background-delivery": true,
    ]
  }

  @Test(
    "a complete app target passes, in XML and binary plists",
    arguments: [
      PropertyListSerialization.PropertyListFormat.xml, .binary,
    ])
  func complete(format: PropertyListSerialization.PropertyListFormat) throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    try folder.write("MyApp/Info.plist", Self.completeInfo, format: format)
    try folder.write("MyApp/MyApp.entitlements", Self.completeEntitlements, format: format)
    let options = AppConfigurationCheck.Options(writesHealthData: true, usesBackgroundDelivery: true)
    let report = try AppConfigurationCheck(options: options).run(path: folder.root.path)
    #expect(report.exitCode == 0)
    #expect(report.findings.allSatisfy { $0.severity == .ok })
    #expect(
      report.findings.map(\.key) == [
        "NSHealthShareUsageDescription", "NSHealthUpdateUsageDescription", "NSMotionUsageDescription",
        "com.apple.developer.healthkit", "com.apple.developer.healthkit.background-delivery",
      ])
    #expect(report.infoPlists.count == 1)
    #expect(report.entitlements.count == 1)
    #expect(report.rendered().hasSuffix("All StepKit requirements are met.\n"))
  }

  @Test("missing keys are reported with what the person would see, and exit 1")
  func missing() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    try folder.write(
      "App/Info.plist", ["CFBundleIdentifier": "com.example.steps", "NSMotionUsageDescription": ""],
      format: .xml)
    try folder.write("App/App.entitlements", [String: Any](), format: .xml)
    let report = try AppConfigurationCheck().run(path: folder.root.path)
    #expect(report.exitCode == 1)
    let missing = report.findings.filter { $0.severity == .missing }
    #expect(
      missing.map(\.key) == [
        "NSHealthShareUsageDescription", "NSMotionUsageDescription", "com.apple.developer.healthkit",
      ])
    #expect(missing[0].message.contains("crash"))
    #expect(missing[1].message.hasPrefix("is empty"))
    #expect(missing[2].message.contains("permission prompt"))
    // Writing and background delivery are not used: notes only.
    #expect(report.findings.first { $0.key == "NSHealthUpdateUsageDescription" }?.severity == .note)
    #expect(report.rendered().contains("MISSING NSHealthShareUsageDescription"))
    #expect(report.rendered().hasSuffix("3 required items are missing.\n"))
  }

  @Test("an app that never uses motion need not describe it; writing and background delivery become required")
  func options() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    let info = try folder.write("Info.plist", ["NSHealthShareUsageDescription": "Steps."], format: .binary)
    let entitlements = try folder.write(
      "App.entitlements", ["com.apple.developer.healthkit": true], format: .binary)

    let readOnly = AppConfigurationCheck(options: .init(usesMotion: false))
    #expect(try readOnly.run(path: info).exitCode == 0)
    #expect(try readOnly.run(path: entitlements).exitCode == 0)

    let writer = AppConfigurationCheck(options: .init(writesHealthData: true, usesMotion: false))
    #expect(
      try writer.run(path: info).findings.filter { $0.severity == .missing }.map(\.key) == [
        "NSHealthUpdateUsageDescription"
      ])

    let background = AppConfigurationCheck(options: .init(usesBackgroundDelivery: true))
    let report = try background.run(path: entitlements)
    #expect(
      report.findings.filter { $0.severity == .missing }.map(\.key) == [
        "com.apple.developer.healthkit.background-delivery"
      ])
    #expect(report.infoPlists.isEmpty)
    // What needs it, and where to turn it on.
    let missing = try #require(report.findings.first { $0.severity == .missing })
    #expect(missing.message.contains("registerBackgroundDelivery(frequency:onUpdate:)"))
    #expect(missing.message.contains("Signing & Capabilities"))
    let note = try #require(
      try readOnly.run(path: entitlements).findings.first { $0.key.hasSuffix("background-delivery") })
    #expect(note.severity == .note)
    #expect(note.message.contains("needed when the app calls registerBackgroundDelivery"))
  }

  @Test("test targets, extensions and build folders are not the app's Info.plist")
  func skipsOtherTargets() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    try folder.write("App/Info.plist", Self.completeInfo, format: .xml)
    try folder.write("App/App.entitlements", Self.completeEntitlements, format: .xml)
    try folder.write("AppTests/Info.plist", [String: Any](), format: .xml)
    try folder.write(".build/debug/Info.plist", [String: Any](), format: .xml)
    try folder.write("Pods/Thing/Info.plist", [String: Any](), format: .xml)
    let report = try AppConfigurationCheck().run(path: folder.root.path)
    #expect(report.infoPlists == [folder.root.appendingPathComponent("App/Info.plist").path])
    #expect(report.exitCode == 0)
  }

  @Test("Xcode's generated Info.plist keys in project.pbxproj count")
  func generatedInfoPlist() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    try folder.write(
      "App.xcodeproj/project.pbxproj",
      text: """
        buildSettings = {
          INFOPLIST_KEY_NSHealthShareUsageDescription = "Shows your daily steps.";
          INFOPLIST_KEY_NSMotionUsageDescription = "Counts steps on this iPhone.";
        };
        """)
    try folder.write("App/App.entitlements", Self.completeEntitlements, format: .xml)
    let report = try AppConfigurationCheck().run(path: folder.root.path)
    #expect(report.exitCode == 0)
    #expect(report.infoPlists.first?.hasSuffix("project.pbxproj") == true)
  }

  @Test("a folder without any Info.plist or entitlements reports both as missing")
  func emptyFolder() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    let report = try AppConfigurationCheck().run(path: folder.root.path)
    #expect(report.exitCode == 1)
    #expect(report.findings.first?.message.contains("no Info.plist found") == true)
  }

  @Test("unreadable input is an error naming the file")
  func failures() throws {
    let folder = try AppFolder()
    defer { folder.remove() }
    let missingPath = folder.root.appendingPathComponent("nope").path
    #expect(throws: AppConfigurationCheck.Failure.notFound(path: missingPath)) {
      try AppConfigurationCheck().run(path: missingPath)
    }
    let broken = try folder.write("Info.plist", text: "<plist><dict><key>oops")
    do {
      _ = try AppConfigurationCheck().run(path: broken)
      Issue.record("a broken plist was accepted")
    } catch AppConfigurationCheck.Failure.unreadable(let path, _) {
      #expect(path == broken)
    }
    let array = try folder.write("Array.plist", ["not": "a dictionary"], format: .xml)
    let arrayData = try PropertyListSerialization.data(
      fromPropertyList: ["a", "b"], format: .xml, options: 0)
    try arrayData.write(to: URL(fileURLWithPath: array))
    #expect(
      throws: AppConfigurationCheck.Failure.unreadable(
        path: array, reason: "the top level is not a dictionary")
    ) {
      try AppConfigurationCheck().run(path: array)
    }
    let text = try folder.write("README.md", text: "hello")
    #expect(throws: AppConfigurationCheck.Failure.unsupportedFile(path: text)) {
      try AppConfigurationCheck().run(path: text)
    }
  }
}

/// The command checks for the keys the library requires at run time: its own
/// copy of them (it does not link StepKit) must not drift from StepKit's.
@Suite("stepkit doctor checks the keys StepKit requires")
struct DoctorKeyTests {
  @Test("every key and entitlement is StepKit's")
  func sameKeys() {
    #expect(
      stepkit.InfoPlistKey.healthShareUsageDescription == StepKit.InfoPlistKey.healthShareUsageDescription)
    #expect(
      stepkit.InfoPlistKey.healthUpdateUsageDescription == StepKit.InfoPlistKey.healthUpdateUsageDescription)
    #expect(stepkit.InfoPlistKey.motionUsageDescription == StepKit.InfoPlistKey.motionUsageDescription)
    #expect(stepkit.InfoPlistKey.healthKitEntitlement == StepKit.InfoPlistKey.healthKitEntitlement)
    #expect(
      stepkit.InfoPlistKey.healthKitBackgroundDeliveryEntitlement
        == StepKit.InfoPlistKey.healthKitBackgroundDeliveryEntitlement)
  }
}
