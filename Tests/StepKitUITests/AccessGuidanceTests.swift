import Foundation
import StepKit
import StepKitUI
import Testing

@Suite("Access guidance: what is missing, where to fix it, and the button that helps")
struct AccessGuidanceTests {
  @Test(
    "each access situation gets its button",
    arguments: [
      (
        AuthorizationStatus(healthKit: .notRequested, motion: .notRequested),
        AccessGuidance.Action?.some(.requestHealthAccess)
      ),
      (AuthorizationStatus(healthKit: .requestedReadAccessUnknown, motion: .denied), nil),
      (AuthorizationStatus(healthKit: .unavailable, motion: .notRequested), .requestMotionAccess),
      (AuthorizationStatus(healthKit: .unavailable, motion: .denied), .open(.appSettings)),
      (AuthorizationStatus(healthKit: .unavailable, motion: .authorized), nil),
      (AuthorizationStatus(healthKit: .restricted, motion: .restricted), nil),
      (AuthorizationStatus(healthKit: nil, motion: .denied), .open(.appSettings)),
      (AuthorizationStatus(healthKit: nil, motion: .notRequested), .requestMotionAccess),
      (AuthorizationStatus(healthKit: nil, motion: .authorized), nil),
    ])
  func status(status: AuthorizationStatus, action: AccessGuidance.Action?) throws {
    let guidance = AccessGuidance.guidance(for: status, formatting: try Fixture.formatting(.english))
    #expect(guidance?.action == action)
    #expect(
      (guidance?.canRequestAccess ?? false)
        == (action == .requestHealthAccess || action == .requestMotionAccess))
  }

  @Test("nothing stands in the way once Health was asked, or Motion & Fitness counts")
  func silentWhenCounting() throws {
    let english = try Fixture.formatting(.english)
    #expect(
      AccessGuidance.guidance(
        for: .init(healthKit: .requestedReadAccessUnknown, motion: nil), formatting: english)
        == nil)
    #expect(
      AccessGuidance.guidance(for: .init(healthKit: .unavailable, motion: .authorized), formatting: english)
        == nil)
    let neither = try #require(
      AccessGuidance.guidance(for: .init(healthKit: .unavailable, motion: .unavailable), formatting: english))
    #expect(neither.situation == .error(.healthDataUnavailable))
    #expect(neither.action == nil)
  }

  @Test(
    "no data from Health: maybe denied, fixed in Health › Sharing › Apps, with a button to the Health app")
  func noData() throws {
    let english = AccessGuidance.noDataMayMeanDeniedAccess(formatting: try Fixture.formatting(.english))
    #expect(english.title == "No steps from Health")
    #expect(english.message.contains("no steps can mean that access is off"))
    #expect(english.hint?.contains("Health › Sharing › Apps › this app") == true)
    #expect(english.hint?.contains("Settings › Health › Data Access & Devices") == true)
    #expect(english.action == .open(.healthApp))
    #expect(english.actionTitle == "Open Health")
    #expect(AccessGuidance.Place.healthApp.url.absoluteString == "x-apple-health://")
    let traditional = AccessGuidance.noDataMayMeanDeniedAccess(
      formatting: try Fixture.formatting(.traditionalChinese, locale: "zh_TW"))
    #expect(traditional.hint?.contains("健康 › 分享 › App › 本 App") == true)
    #expect(traditional.actionTitle == "打開「健康」")
    let simplified = AccessGuidance.noDataMayMeanDeniedAccess(
      formatting: try Fixture.formatting(.simplifiedChinese, locale: "zh_CN"))
    #expect(simplified.hint?.contains("健康 › 共享 › App") == true)
  }

  @Test("Motion & Fitness off: Settings › Privacy & Security › Motion & Fitness, opened at the app's page")
  func motionDenied() throws {
    let guidance = AccessGuidance(error: .motionNotAuthorized, formatting: try Fixture.formatting(.english))
    #expect(guidance.title == "Motion & Fitness is off")
    #expect(guidance.hint?.contains("Settings › Privacy & Security › Motion & Fitness") == true)
    #expect(guidance.action == .open(.appSettings))
    #expect(guidance.situation == .motion(.denied))
    #expect(AccessGuidance.Place.appSettings.url == StepKitError.appSettingsURL)
    let chinese = AccessGuidance(
      error: .motionNotAuthorized, formatting: try Fixture.formatting(.simplifiedChinese))
    #expect(chinese.hint?.contains("设置 › 隐私与安全性 › 运动与健身") == true)
    #expect(chinese.actionTitle == "打开设置")
  }

  @Test(
    "errors: the request button only while the prompt can still be shown",
    arguments: [
      (StepKitError.authorizationNotDetermined(.steps), AccessGuidance.Action?.some(.requestHealthAccess)),
      (.authorizationCancelled, .requestHealthAccess), (.writeAccessDenied(.bodyMass), .open(.healthApp)),
      (.motionNotAuthorized, .open(.appSettings)), (.healthDatabaseLocked, nil), (.healthDataRestricted, nil),
      (.motionRestricted, nil), (.healthDataUnavailable, nil), (.motionNotAvailable, nil),
      (.missingUsageDescription(key: "NSHealthShareUsageDescription"), nil),
      (.queryFailed(code: 3, message: "x"), nil),
    ])
  func errors(error: StepKitError, action: AccessGuidance.Action?) throws {
    for language in StepKitLanguage.allCases {
      let guidance = AccessGuidance(error: error, formatting: try Fixture.formatting(language))
      #expect(guidance.action == action)
      #expect(guidance.message == error.description(in: language))
      #expect((guidance.actionTitle == nil) == (action == nil))
      #expect(!guidance.title.isEmpty)
      #expect(guidance.hint?.contains(" > ") != true, "paths are shown with ›")
    }
  }

  @Test("a locked iPhone says to unlock it, in Traditional Chinese too")
  func locked() throws {
    let guidance = AccessGuidance(
      error: .healthDatabaseLocked, formatting: try Fixture.formatting(.traditionalChinese, locale: "zh_TW"))
    #expect(guidance.title == "iPhone 已鎖定")
    #expect(guidance.hint == "請解鎖裝置後再試一次。")
  }
}

#if canImport(HealthKitStandIn)
  import HealthKitStandIn

  @Suite("Access guidance over a device that answers with an error")
  struct AccessGuidanceErrorTests {
    @Test("a build without the HealthKit entitlement is told so, not offered the prompt")
    func missingEntitlement() async throws {
      let simulation = HealthStoreSimulation()
      simulation.hasHealthKitEntitlement = false
      let counter = StepCounter(
        health: HealthKitStepSource(store: HKHealthStore(simulation: simulation)), motion: nil,
        bundle: DictionaryBundleInfo.complete)
      let guidance = try #require(await AccessCheck(counter: counter).guidance())
      #expect(guidance.action != .requestHealthAccess)
      #expect(guidance.situation == .error(.missingEntitlement(key: InfoPlistKey.healthKitEntitlement)))
    }
  }
#endif
