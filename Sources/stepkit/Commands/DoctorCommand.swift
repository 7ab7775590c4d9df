/// `stepkit doctor PATH`: checks an app's Info.plist and entitlements for
/// what StepKit needs, and says what the user or the app would see without it.
struct DoctorCommand: Subcommand {
  static let name = "doctor"
  static let abstract = "Check an app's Info.plist and entitlements for what StepKit needs."
  static let discussion = """
    Usage: stepkit doctor PATH [options]

    PATH is an app's Info.plist, its .entitlements file, or a folder (an Xcode
    app target), searched for both; XML and binary property lists are read.
    Checks NSHealthShareUsageDescription (HealthKit ends an app that asks for
    access without it), NSHealthUpdateUsageDescription when the app writes,
    NSMotionUsageDescription (the default strategy falls back to CoreMotion),
    the com.apple.developer.healthkit entitlement, and the background-delivery
    entitlement when the app uses it. Exits 1 when something required is
    missing, 0 when all is well.

    Examples:
      stepkit doctor MyApp/
      stepkit doctor MyApp/Info.plist --writes
      stepkit doctor MyApp/MyApp.entitlements --background-delivery
    """

  static let arguments = ArgumentSpec(
    flags: [.writes, .noMotion, .backgroundDelivery],
    positionals: [.init("PATH", help: "an Info.plist, an .entitlements file, or a folder")])

  var path: String
  var options: AppConfigurationCheck.Options

  init(_ parsed: ParsedArguments, console: Console) throws(UsageError) {
    path = parsed.positionals[0]
    options = AppConfigurationCheck.Options(
      writesHealthData: parsed.has(.writes), usesMotion: !parsed.has(.noMotion),
      usesBackgroundDelivery: parsed.has(.backgroundDelivery))
  }

  func run(_ console: Console) throws(CommandError) {
    let report: AppConfigurationCheck.Report
    do {
      report = try AppConfigurationCheck(options: options).run(path: path)
    } catch let failure as AppConfigurationCheck.Failure {
      throw .output(failure.errorDescription ?? "\(path): cannot be checked")
    } catch {
      throw .output("\(path): \(error.localizedDescription)")
    }
    console.output(report.rendered())
    if report.hasMissingRequirements {
      throw .checkFailed
    }
  }
}

extension ArgumentSpec.Flag {
  /// `--writes` of `stepkit doctor`.
  static let writes = Self(
    "writes", help: "The app saves body mass or height (needs NSHealthUpdateUsageDescription).")
  /// `--no-motion` of `stepkit doctor`.
  static let noMotion = Self(
    "no-motion", help: "The app never uses CoreMotion (NSMotionUsageDescription not needed).")
  /// `--background-delivery` of `stepkit doctor`.
  static let backgroundDelivery = Self(
    "background-delivery", help: "The app enables HealthKit background delivery.")
}
