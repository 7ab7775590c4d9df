import Foundation

/// Checks an app's Info.plist and entitlements for what StepKit needs
/// (what `stepkit doctor PATH` prints). It reads files only, so it lives with
/// the command rather than in the app library.
///
/// ```swift
/// let report = try AppConfigurationCheck(options: .init(writesHealthData: true)).run(path: "MyApp")
/// print(report.rendered())
/// exit(report.exitCode)
/// ```
///
/// PATH is an `Info.plist`, an `.entitlements` file, or a folder searched for
/// both (as in an Xcode app target; build folders, `Pods`, test and extension
/// targets are skipped). Property lists may be XML or binary. A folder with
/// no Info.plist file is also checked for `INFOPLIST_KEY_…` build settings in
/// `project.pbxproj` (Xcode's generated Info.plist).
struct AppConfigurationCheck: Sendable {
  /// What the app does, which decides what is required.
  struct Options: Sendable, Hashable {
    /// The app writes body mass or height (needs `NSHealthUpdateUsageDescription`).
    var writesHealthData: Bool
    /// The app may use CoreMotion (the default `healthKitThenMotion` strategy
    /// does); `false` when the app never uses motion.
    var usesMotion: Bool
    /// The app enables HealthKit background delivery.
    var usesBackgroundDelivery: Bool

    /// Creates options.
    ///
    /// - Parameters:
    ///   - writesHealthData: Whether the app saves body measurements.
    ///   - usesMotion: Whether the app may fall back to CoreMotion; `true` by default.
    ///   - usesBackgroundDelivery: Whether the app enables background delivery.
    init(writesHealthData: Bool = false, usesMotion: Bool = true, usesBackgroundDelivery: Bool = false) {
      self.writesHealthData = writesHealthData
      self.usesMotion = usesMotion
      self.usesBackgroundDelivery = usesBackgroundDelivery
    }
  }

  /// How serious a finding is.
  enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
    /// Everything needed is present.
    case ok
    /// Worth knowing; the app works.
    case note
    /// Required and missing: the app would crash or fail.
    case missing

    var rank: Int {
      switch self {
      case .ok: return 0
      case .note: return 1
      case .missing: return 2
      }
    }

    /// Orders by seriousness: ok, note, missing.
    static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
  }

  /// One thing checked.
  struct Finding: Sendable, Hashable {
    /// How serious it is.
    var severity: Severity
    /// The Info.plist key or entitlement.
    var key: String
    /// The file checked, when there was one.
    var file: String?
    /// What was found and why it matters (what the person or the app would see), in English.
    var message: String
  }

  /// The outcome of a check.
  struct Report: Sendable, Hashable {
    /// The Info.plist files (or project file) checked.
    var infoPlists: [String]
    /// The entitlements files checked.
    var entitlements: [String]
    /// The findings, in the order checked.
    var findings: [Finding]

    /// Whether something required is missing.
    var hasMissingRequirements: Bool { findings.contains { $0.severity == .missing } }

    /// The exit status for `stepkit doctor`: 1 when something required is missing, else 0.
    var exitCode: Int32 { hasMissingRequirements ? 1 : 0 }

    /// The report as lines of text: the files checked, each finding, and a verdict.
    ///
    /// - Returns: The text, ending with a newline.
    func rendered() -> String {
      var lines: [String] = []
      for file in infoPlists { lines.append("Info.plist: \(file)") }
      for file in entitlements { lines.append("Entitlements: \(file)") }
      for finding in findings {
        let mark: String
        switch finding.severity {
        case .ok: mark = "ok     "
        case .note: mark = "note   "
        case .missing: mark = "MISSING"
        }
        lines.append("\(mark) \(finding.key): \(finding.message)")
      }
      let missing = findings.filter { $0.severity == .missing }.count
      lines.append(
        missing == 0
          ? "All StepKit requirements are met."
          : "\(missing) required \(missing == 1 ? "item is" : "items are") missing.")
      return lines.joined(separator: "\n") + "\n"
    }
  }

  /// What goes wrong before anything can be checked.
  enum Failure: Error, Equatable, Sendable, LocalizedError {
    /// Nothing exists at the path.
    case notFound(path: String)
    /// The file is not a property list (or not a dictionary); `reason` says why.
    case unreadable(path: String, reason: String)
    /// The file is neither an Info.plist, an `.entitlements` file nor a folder.
    case unsupportedFile(path: String)

    /// A sentence naming the file.
    var errorDescription: String? {
      switch self {
      case .notFound(let path): return "\(path): no such file or folder."
      case .unreadable(let path, let reason): return "\(path): not a readable property list: \(reason)"
      case .unsupportedFile(let path):
        return "\(path): expected an Info.plist, an .entitlements file or a folder holding them."
      }
    }
  }

  /// What the app does.
  var options: Options

  /// Creates a check.
  ///
  /// - Parameter options: What the app does; reads steps and may use CoreMotion by default.
  init(options: Options = Options()) { self.options = options }

  /// Checks the Info.plist and entitlements at or under `path`.
  ///
  /// - Parameter path: An `Info.plist`, an `.entitlements` file, or a folder.
  /// - Returns: The report.
  /// - Throws: ``Failure`` when the path does not exist or a file cannot be read.
  func run(path: String) throws -> Report {
    let fileManager = FileManager.default
    var isDirectory: ObjCBool = false
    guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
      throw Failure.notFound(path: path)
    }

    var infoFiles: [String] = []
    var entitlementFiles: [String] = []
    var projectFiles: [String] = []
    if isDirectory.boolValue {
      (infoFiles, entitlementFiles, projectFiles) = Self.search(folder: path)
    } else if path.hasSuffix(".entitlements") {
      entitlementFiles = [path]
    } else if path.hasSuffix(".plist") {
      infoFiles = [path]
    } else {
      throw Failure.unsupportedFile(path: path)
    }

    var report = Report(infoPlists: infoFiles, entitlements: entitlementFiles, findings: [])
    var info: [(file: String, values: [String: String])] = try infoFiles.map { file in
      (file, try Self.readPlist(file).compactMapValues { $0 as? String })
    }
    if info.isEmpty, let project = projectFiles.first {
      info = [(project, Self.generatedInfoPlistKeys(project))]
      report.infoPlists = [project]
    }
    let entitlements: [(file: String, values: [String: Any])] = try entitlementFiles.map {
      ($0, try Self.readPlist($0))
    }

    // A single file is checked for its own keys; a folder for both kinds.
    if isDirectory.boolValue || !infoFiles.isEmpty { report.findings += infoFindings(info) }
    if isDirectory.boolValue || !entitlementFiles.isEmpty {
      report.findings += entitlementFindings(entitlements)
    }
    return report
  }

  // MARK: Checks

  func infoFindings(_ info: [(file: String, values: [String: String])]) -> [Finding] {
    var findings: [Finding] = []
    func check(_ key: String, required: Bool, why: String, notRequired: String) {
      let present = info.first { entry in
        entry.values[key].map { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty } ?? false
      }
      if let present {
        findings.append(Finding(severity: .ok, key: key, file: present.file, message: "present."))
      } else if info.isEmpty {
        findings.append(
          Finding(
            severity: required ? .missing : .note, key: key, file: nil, message: "no Info.plist found. " + why
          ))
      } else {
        let empty = info.contains { $0.values[key] != nil }
        let what = empty ? "is empty" : "is missing"
        findings.append(
          Finding(
            severity: required ? .missing : .note, key: key, file: info.first?.file,
            message: required ? "\(what). \(why)" : "\(what); \(notRequired)"))
      }
    }
    check(
      InfoPlistKey.healthShareUsageDescription, required: true,
      why: "HealthKit terminates the app as soon as it asks to read steps: people see the app crash "
        + "at the permission prompt.",
      notRequired: "")
    check(
      InfoPlistKey.healthUpdateUsageDescription, required: options.writesHealthData,
      why: "HealthKit terminates the app when it asks to save weight or height.",
      notRequired: "needed only when the app saves weight or height.")
    check(
      InfoPlistKey.motionUsageDescription, required: options.usesMotion,
      why: "StepKit's default strategy falls back to CoreMotion when HealthKit cannot answer, and the "
        + "system terminates the app on its first pedometer query without this key "
        + "(if the app never uses motion, `stepkit doctor --no-motion` or `usesMotion: false` skips this "
        + "check).",
      notRequired: "the app says it never uses motion.")
    return findings
  }

  func entitlementFindings(_ entitlements: [(file: String, values: [String: Any])]) -> [Finding] {
    var findings: [Finding] = []
    func enabled(_ key: String) -> String? {
      entitlements.first { entry in
        switch entry.values[key] {
        case let flag as Bool: return flag
        case let number as NSNumber: return number.boolValue
        default: return false
        }
      }?.file
    }
    if let file = enabled(InfoPlistKey.healthKitEntitlement) {
      findings.append(
        Finding(severity: .ok, key: InfoPlistKey.healthKitEntitlement, file: file, message: "enabled."))
    } else {
      findings.append(
        Finding(
          severity: .missing, key: InfoPlistKey.healthKitEntitlement, file: entitlements.first?.file,
          message: (entitlements.isEmpty ? "no .entitlements file found. " : "is not enabled. ")
            + "Without the HealthKit capability every HealthKit request fails: the app never shows the "
            + "permission prompt and reads no steps."))
    }
    let backgroundKey = InfoPlistKey.healthKitBackgroundDeliveryEntitlement
    if let file = enabled(backgroundKey) {
      findings.append(Finding(severity: .ok, key: backgroundKey, file: file, message: "enabled."))
    } else if options.usesBackgroundDelivery {
      findings.append(
        Finding(
          severity: .missing, key: backgroundKey, file: entitlements.first?.file,
          message: "is not enabled. registerBackgroundDelivery(frequency:onUpdate:) and "
            + "enableBackgroundDelivery() fail with missingEntitlement (iOS 15 and later), so HealthKit "
            + "never wakes the app for new steps. Tick Background Delivery under HealthKit in Signing & "
            + "Capabilities."))
    } else {
      findings.append(
        Finding(
          severity: .note, key: backgroundKey, file: entitlements.first?.file,
          message:
            "is not enabled; needed when the app calls registerBackgroundDelivery(frequency:onUpdate:) "
            + "or enableBackgroundDelivery() to have new steps delivered while it is not running."))
    }
    return findings
  }

  // MARK: Files

  /// Reads a property list (XML or binary) holding a dictionary.
  static func readPlist(_ path: String) throws -> [String: Any] {
    let data: Data
    do {
      data = try Data(contentsOf: URL(fileURLWithPath: path))
    } catch {
      throw Failure.unreadable(path: path, reason: (error as NSError).localizedDescription)
    }
    let object: Any
    do {
      object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    } catch {
      throw Failure.unreadable(path: path, reason: (error as NSError).localizedDescription)
    }
    guard let dictionary = object as? [String: Any] else {
      throw Failure.unreadable(path: path, reason: "the top level is not a dictionary")
    }
    return dictionary
  }

  /// Folders never holding the app target's own files.
  static let skippedFolders: Set<String> = [
    ".build", ".git", ".swiftpm", "Pods", "Carthage", "DerivedData", "build", "node_modules",
    "SourcePackages",
  ]

  /// The Info.plist, entitlements and project files under `folder`.
  static func search(folder: String) -> (info: [String], entitlements: [String], projects: [String]) {
    var info: [String] = []
    var entitlements: [String] = []
    var projects: [String] = []
    // Paths stay as the caller wrote the folder (relative stays relative), so reports
    // read the same wherever the project lives.
    let root = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return ([], [], []) }
    while let relative = enumerator.nextObject() as? String {
      let components = relative.split(separator: "/").map(String.init)
      let skipped = components.dropLast().contains { component in
        skippedFolders.contains(component) || component.hasSuffix("Tests") || component.hasSuffix(".xctest")
          || component.hasSuffix(".appex") || component.hasSuffix(".bundle")
      }
      guard !skipped, let name = components.last else { continue }
      let path = root + "/" + relative
      if name == "Info.plist" {
        info.append(path)
      } else if name.hasSuffix(".entitlements") {
        entitlements.append(path)
      } else if name == "project.pbxproj" {
        projects.append(path)
      }
    }
    return (info.sorted(), entitlements.sorted(), projects.sorted())
  }

  /// Info.plist keys Xcode generates from `INFOPLIST_KEY_<key> = "…";` build settings.
  static func generatedInfoPlistKeys(_ projectFile: String) -> [String: String] {
    guard let data = FileManager.default.contents(atPath: projectFile),
      let text = String(data: data, encoding: .utf8)
    else { return [:] }
    var values: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("INFOPLIST_KEY_"), let equals = trimmed.firstIndex(of: "=") else { continue }
      let key = trimmed[trimmed.index(trimmed.startIndex, offsetBy: 14)..<equals].trimmingCharacters(
        in: .whitespaces)
      var value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      if value.hasSuffix(";") { value.removeLast() }
      value = value.trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
      values[key] = value
    }
    return values
  }
}

/// The Info.plist keys and entitlements the check looks for: StepKit's
/// `InfoPlistKey`, spelled again here because the command does not link the app
/// library (a test compares the two).
enum InfoPlistKey {
  /// Why the app reads health data.
  static let healthShareUsageDescription = "NSHealthShareUsageDescription"
  /// Why the app writes health data.
  static let healthUpdateUsageDescription = "NSHealthUpdateUsageDescription"
  /// Why the app reads motion data.
  static let motionUsageDescription = "NSMotionUsageDescription"
  /// The HealthKit entitlement.
  static let healthKitEntitlement = "com.apple.developer.healthkit"
  /// The entitlement HealthKit background delivery needs.
  static let healthKitBackgroundDeliveryEntitlement = "com.apple.developer.healthkit.background-delivery"
}
