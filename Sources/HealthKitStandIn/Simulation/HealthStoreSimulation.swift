import Foundation

/// The stand-in's test controls: what the simulated device and its Health
/// database hold and how they answer. Not part of HealthKit.
///
/// ```swift
/// let simulation = HealthStoreSimulation()
/// simulation.add(steps: 1200, from: nine, to: ten, origin: .appleWatch)
/// simulation.answers[HKQuantityTypeIdentifier.stepCount.rawValue] = .init(read: false, share: false)
/// simulation.isLocked = true
/// let store = HKHealthStore(simulation: simulation)
/// ```
///
/// Whether the *device* supports HealthKit is a task-local value, because
/// `HKHealthStore.isHealthDataAvailable()` is a class method:
/// `HealthStoreSimulation.$deviceSupportsHealthData.withValue(false) { … }`.
public final class HealthStoreSimulation: @unchecked Sendable {
  // Safe to share: every control and all the simulated state live in `state`, read and written
  // only under `lock` (`withState`); handlers run on `handlerQueue` with values copied out of it.
  /// Whether the simulated device supports HealthKit (what
  /// `HKHealthStore.isHealthDataAvailable()` answers). Stores check it when
  /// a call starts.
  @TaskLocal public static var deviceSupportsHealthData = true

  /// An app or device that writes samples.
  public struct Origin: Sendable, Hashable {
    /// The source's name (`HKSource.name`).
    public var name: String
    /// The source's bundle identifier.
    public var bundleIdentifier: String
    /// The device model (`Watch`, `iPhone`), if the samples carry a device.
    public var deviceModel: String?
    /// The device's hardware version (`Watch6,1`).
    public var hardwareVersion: String?

    /// Creates an origin.
    public init(
      name: String, bundleIdentifier: String, deviceModel: String? = nil, hardwareVersion: String? = nil
    ) {
      self.name = name
      self.bundleIdentifier = bundleIdentifier
      self.deviceModel = deviceModel
      self.hardwareVersion = hardwareVersion
    }

    /// An Apple Watch.
    public static let appleWatch = Origin(
      name: "Apple Watch", bundleIdentifier: "com.apple.health.7F1C0A52-3D1B-4C55-9E0A-2B6C1E0F9A11",
      deviceModel: "Watch", hardwareVersion: "Watch6,1")
    /// An iPhone.
    public static let iPhone = Origin(
      name: "iPhone", bundleIdentifier: "com.apple.health.3B9E55D0-8A2F-4E61-B1C7-5D4A9F2E6C03",
      deviceModel: "iPhone", hardwareVersion: "iPhone15,2")
    /// The Health app, where people type entries in.
    public static let healthApp = Origin(name: "Health", bundleIdentifier: "com.apple.Health")
    /// Another app writing steps.
    public static let otherApp = Origin(
      name: "Pedometer Plus", bundleIdentifier: "com.example.pedometer-plus")
    /// The app under test itself (`HKSource.default()`).
    public static let thisApp = Origin(name: "This App", bundleIdentifier: "com.example.this-app")

    var source: HKSource { HKSource(name: name, bundleIdentifier: bundleIdentifier) }
    var device: HKDevice? {
      guard deviceModel != nil || hardwareVersion != nil else { return nil }
      return HKDevice(
        name: name, manufacturer: "Apple Inc.", model: deviceModel, hardwareVersion: hardwareVersion,
        firmwareVersion: nil, softwareVersion: nil, localIdentifier: nil, udiDeviceIdentifier: nil)
    }
  }

  /// How the person answers the prompt for one type.
  public struct Answer: Sendable, Hashable {
    /// Whether reading is allowed.
    public var read: Bool
    /// Whether writing is allowed.
    public var share: Bool

    // Written out as every public value type's memberwise initializer is (Swift makes none public):
    // alike in shape only with other types' of as many fields; each names its own fields.

    /// Creates an answer.
    public init(read: Bool, share: Bool) {
      self.read = read
      self.share = share
    }
    /// Everything allowed.
    public static let allow = Answer(read: true, share: true)
    /// Everything denied.
    public static let deny = Answer(read: false, share: false)
  }

  struct State {
    var samples: [HKQuantitySample] = []
    var requested: Set<String> = []
    var granted: [String: Answer] = [:]
    var answers: [String: Answer] = [:]
    var defaultAnswer = Answer.allow
    var isLocked = false
    var notificationCenter = NotificationCenter.default
    var isRestricted = false
    var queryFailure: HKError.Code?
    var authorizationFailure: HKError.Code?
    var saveFailure: HKError.Code?
    var backgroundDeliveryFailure: HKError.Code?
    var inflatesFilteredStatistics = false
    var missingMetadataKeyIsNull = false
    var hasHealthKitEntitlement = true
    var hasBackgroundDeliveryEntitlement = true
    var biologicalSex = HKBiologicalSex.notSet
    var dateOfBirth: DateComponents?
    var calendar = Calendar.current
    var userOrder: [String: [String]] = [:]
    var executedQueries: [String] = []
    var backgroundDelivery: [String: HKUpdateFrequency] = [:]
    var observers: [ObjectIdentifier: HKObserverQuery] = [:]
    var appRunning = true
    var isLaunching = false
    var launchObservers: Set<ObjectIdentifier> = []
    var pendingBackgroundDelivery: Set<String> = []
    var observerDeliveries = 0
    var observerCompletions = 0
    var completionWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var prompts = 0
    var raisedExceptions: [String] = []
    var usageDescriptions: Set<String> = [
      HealthStoreSimulation.shareUsageDescription, HealthStoreSimulation.updateUsageDescription,
    ]
    var unshareableTypes: Set<String> = [HKQuantityTypeIdentifier.appleExerciseTime.rawValue]
    var grantsBackgroundTime = true
    var expiringActivities: [UInt64: @Sendable (Bool) -> Void] = [:]
    var activityCount: UInt64 = 0
    var activityWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    var isSuspended = false
    var holdsAnswers = false
    var heldHandlers: [(observer: Bool, handler: @Sendable () -> Void)] = []
  }

  private let lock = NSLock()
  private var state = State()
  /// The queue handlers run on: a background queue, as on the device.
  let handlerQueue = DispatchQueue(label: "HealthKitStandIn.handlers", qos: .utility, attributes: .concurrent)

  /// A simulation with no samples, nothing requested, unlocked.
  public init() {}

  func withState<T>(_ body: (inout State) throws -> T) rethrows -> T {
    try lock.withLock { try body(&state) }
  }

  // MARK: Controls

  // Each control is a property over the locked state, a getter and a setter
  // of one line each, alike on purpose (as in `SimulatedStepSource` and
  // `PedometerSimulator`): a key-path subscript would save no line and hide
  // which fields tests may change, and every control keeps its own documentation.
  // Not shared with SimulatedStepSource's: the stand-in plays HealthKit and may share no code with StepKit.

  /// How the person will answer the prompt, per type identifier (raw value).
  public var answers: [String: Answer] {
    get { withState { $0.answers } }
    set { withState { $0.answers = newValue } }
  }
  /// The answer for types not in ``answers``; everything allowed by default.
  public var defaultAnswer: Answer {
    get { withState { $0.defaultAnswer } }
    set { withState { $0.defaultAnswer = newValue } }
  }
  /// Whether the device is locked: queries fail with `errorDatabaseInaccessible`, saves still work.
  ///
  /// Unlocking posts `UIApplicationProtectedDataDidBecomeAvailable` (and
  /// locking `UIApplicationProtectedDataWillBecomeUnavailable`) on
  /// ``notificationCenter``, as UIKit does on the device.
  public var isLocked: Bool {
    get { withState { $0.isLocked } }
    set {
      let (changed, center) = withState { state -> (Bool, NotificationCenter) in
        defer { state.isLocked = newValue }
        return (state.isLocked != newValue, state.notificationCenter)
      }
      guard changed else { return }
      center.post(
        name: Notification.Name(
          newValue
            ? "UIApplicationProtectedDataWillBecomeUnavailable"
            : "UIApplicationProtectedDataDidBecomeAvailable"),
        object: nil)
    }
  }
  /// Where the simulated UIKit posts the protected-data notifications;
  /// `NotificationCenter.default` unless a test gives its own.
  public var notificationCenter: NotificationCenter {
    get { withState { $0.notificationCenter } }
    set { withState { $0.notificationCenter = newValue } }
  }
  /// Whether access is restricted (device management): everything fails with `errorHealthDataRestricted`.
  public var isRestricted: Bool {
    get { withState { $0.isRestricted } }
    set { withState { $0.isRestricted = newValue } }
  }
  /// When set, every query fails with this code.
  public var queryFailure: HKError.Code? {
    get { withState { $0.queryFailure } }
    set { withState { $0.queryFailure = newValue } }
  }
  /// When set, authorization requests fail with this code (`errorUserCanceled`, …).
  public var authorizationFailure: HKError.Code? {
    get { withState { $0.authorizationFailure } }
    set { withState { $0.authorizationFailure = newValue } }
  }
  /// When set, saves fail with this code.
  public var saveFailure: HKError.Code? {
    get { withState { $0.saveFailure } }
    set { withState { $0.saveFailure = newValue } }
  }
  /// When set, enabling background delivery fails with this code (a missing entitlement).
  public var backgroundDeliveryFailure: HKError.Code? {
    get { withState { $0.backgroundDeliveryFailure } }
    set { withState { $0.backgroundDeliveryFailure = newValue } }
  }
  /// Whether the app is signed with `com.apple.developer.healthkit`. Without
  /// it, authorization requests, queries, characteristic reads, saves and
  /// background delivery fail with code 4 and "Missing
  /// com.apple.developer.healthkit entitlement." (as device logs show).
  public var hasHealthKitEntitlement: Bool {
    get { withState { $0.hasHealthKitEntitlement } }
    set { withState { $0.hasHealthKitEntitlement = newValue } }
  }
  /// Whether the app is signed with
  /// `com.apple.developer.healthkit.background-delivery`. Without it,
  /// enabling background delivery fails with code 4 naming that entitlement.
  public var hasBackgroundDeliveryEntitlement: Bool {
    get { withState { $0.hasBackgroundDeliveryEntitlement } }
    set { withState { $0.hasBackgroundDeliveryEntitlement = newValue } }
  }
  /// Reproduces what users report of real devices (an iPhone and an Apple
  /// Watch both recording): statistics and statistics-collection queries whose
  /// predicate carries a metadata filter (`HKMetadataKeyWasUserEntered`) add
  /// up every source instead of merging them, inflating totals 2–3×.
  /// Off by default; the HealthKit provider's merge check is tested with it on.
  public var inflatesFilteredStatistics: Bool {
    get { withState { $0.inflatesFilteredStatistics } }
    set { withState { $0.inflatesFilteredStatistics = newValue } }
  }
  /// Evaluates `predicateForObjects(withMetadataKey:allowedValues:)` as SQL
  /// would a NULL when a sample lacks the key: unknown, and still unknown
  /// under `NOT`, so `NOT(typed-in)` drops every sample without the key (every
  /// iPhone and Watch sample). No document says how HealthKit evaluates it;
  /// this mode lets a test show that code relying on it can lose every step.
  /// The format predicate `metadata.%K != YES` is unaffected (a missing key
  /// is "not YES"). Off by default.
  public var missingMetadataKeyIsNull: Bool {
    get { withState { $0.missingMetadataKeyIsNull } }
    set { withState { $0.missingMetadataKeyIsNull = newValue } }
  }
  /// The stored biological sex.
  public var biologicalSex: HKBiologicalSex {
    get { withState { $0.biologicalSex } }
    set { withState { $0.biologicalSex = newValue } }
  }
  /// The stored date of birth.
  public var dateOfBirth: DateComponents? {
    get { withState { $0.dateOfBirth } }
    set { withState { $0.dateOfBirth = newValue } }
  }
  /// The device's calendar as it is now (its time zone follows the phone),
  /// which a statistics collection uses for its intervals when it runs:
  /// change it between two queries to model travel.
  public var calendar: Calendar {
    get { withState { $0.calendar } }
    set { withState { $0.calendar = newValue } }
  }
  /// The Objective-C exceptions HealthKit raised so far, each with its
  /// message: creating an `HKQuantitySample` whose end precedes its start or
  /// whose value is not finite (recorded when it is saved), asking for
  /// authorization without the Info.plist usage description, or asking to
  /// share a type apps may not write. On a device each one ends the app.
  public var raisedExceptions: [String] { withState { $0.raisedExceptions } }
  /// The app's Info.plist usage descriptions (`NSHealthShareUsageDescription`,
  /// `NSHealthUpdateUsageDescription`); both by default.
  public var usageDescriptions: Set<String> {
    get { withState { $0.usageDescriptions } }
    set { withState { $0.usageDescriptions = newValue } }
  }
  /// Types apps may read but not share (Apple computes them): asking to
  /// share one raises an exception. Exercise time by default.
  public var unshareableTypes: Set<String> {
    get { withState { $0.unshareableTypes } }
    set { withState { $0.unshareableTypes = newValue } }
  }

  static let shareUsageDescription = "NSHealthShareUsageDescription"
  static let updateUsageDescription = "NSHealthUpdateUsageDescription"

  func raise(_ exception: String) { withState { $0.raisedExceptions.append(exception) } }

  /// The class names of the queries executed so far, in order.
  public var executedQueries: [String] { withState { $0.executedQueries } }
  /// How many times the prompt was shown.
  public var promptCount: Int { withState { $0.prompts } }
  /// Background delivery enabled so far, by type identifier.
  public var backgroundDelivery: [String: HKUpdateFrequency] { withState { $0.backgroundDelivery } }
  /// How many observer queries are running.
  public var activeObserverCount: Int { withState { $0.observers.count } }

  /// Every sample in the store.
  public var storedSampleCount: Int { withState { $0.samples.count } }

  /// Adds a step sample and notifies observer queries.
  ///
  /// - Parameters:
  ///   - steps: The count.
  ///   - start: Its start.
  ///   - end: Its end.
  ///   - origin: Who wrote it.
  ///   - userEntered: Whether a person typed it in (`HKMetadataKeyWasUserEntered`).
  public func add(
    steps: Double, from start: Date, to end: Date, origin: Origin = .iPhone, userEntered: Bool = false
  ) {
    add(.stepCount, HKUnit.count(), steps, start, end, origin, userEntered)
  }

  /// Adds a walking + running distance sample (metres) and notifies observer queries.
  ///
  /// - Parameters:
  ///   - meters: The distance.
  ///   - start: Its start.
  ///   - end: Its end.
  ///   - origin: Who wrote it.
  ///   - userEntered: Whether a person typed it in.
  public func add(
    meters: Double, from start: Date, to end: Date, origin: Origin = .iPhone, userEntered: Bool = false
  ) {
    add(.distanceWalkingRunning, HKUnit.meter(), meters, start, end, origin, userEntered)
  }

  /// Adds a sample of any quantity type and notifies observer queries.
  ///
  /// - Parameters:
  ///   - identifier: The quantity type (`.bodyMass`, `.activeEnergyBurned`, …).
  ///   - value: The amount, in `unit`.
  ///   - unit: A unit that fits the type.
  ///   - start: Its start.
  ///   - end: Its end (equal to `start` for a measurement at one moment).
  ///   - origin: Who wrote it.
  ///   - userEntered: Whether a person typed it in.
  public func add(
    _ identifier: HKQuantityTypeIdentifier, value: Double, unit: HKUnit, from start: Date, to end: Date,
    origin: Origin = .iPhone, userEntered: Bool = false
  ) {
    add(identifier, unit, value, start, end, origin, userEntered)
  }

  private func add(
    _ identifier: HKQuantityTypeIdentifier, _ unit: HKUnit, _ value: Double, _ start: Date, _ end: Date,
    _ origin: Origin, _ userEntered: Bool
  ) {
    let sample = HKQuantitySample(
      type: HKQuantityType(identifier), quantity: HKQuantity(unit: unit, doubleValue: value), start: start,
      end: end,
      source: origin.source, device: origin.device,
      metadata: userEntered ? [HKMetadataKeyWasUserEntered: true] : nil)
    store(sample)
  }

  func store(_ sample: HKQuantitySample) {
    if let exception = sample.raisedException {
      raise(exception)
      return
    }
    let observers = withState { state -> [HKObserverQuery] in
      state.samples.append(sample)
      return state.observers.values.filter { $0.objectType?.identifier == sample.sampleType.identifier }
    }
    for observer in observers { observer.notify(in: self) }
    if observers.isEmpty {
      withState { state in
        if !state.appRunning, state.backgroundDelivery[sample.sampleType.identifier] != nil {
          state.pendingBackgroundDelivery.insert(sample.sampleType.identifier)
        }
      }
    }
  }

  // MARK: Background delivery

  /// Ends the app's process, as the system does to a suspended app: its
  /// queries stop. Background delivery stays enabled, and new samples of a
  /// type with background delivery will relaunch the app
  /// (``relaunchInBackground(_:)``).
  public func terminateApp() {
    withState { state in
      state.observers = [:]
      state.appRunning = false
    }
  }

  /// Relaunches a terminated app in the background, as HealthKit does when
  /// samples of a type with background delivery arrived: runs `launch` (the
  /// app's `application(_:didFinishLaunchingWithOptions:)`, or its SwiftUI
  /// `App` initialiser), then calls the update handlers of the observer
  /// queries executed *during* `launch` for those types. Observers executed
  /// later receive nothing for this launch, as on the device.
  ///
  /// - Parameter launch: What the app does at launch.
  /// - Returns: Whether HealthKit had something to deliver (background
  ///   delivery enabled and new samples while the app was not running).
  @discardableResult
  public func relaunchInBackground(_ launch: () -> Void) -> Bool {
    withState { state in
      state.appRunning = true
      state.launchObservers = []
      state.isLaunching = true
    }
    launch()
    let (pending, launchObservers) = withState { state -> (Set<String>, [HKObserverQuery]) in
      state.isLaunching = false
      defer {
        state.pendingBackgroundDelivery = []
        state.launchObservers = []
      }
      let ids = state.launchObservers
      return (state.pendingBackgroundDelivery, state.observers.filter { ids.contains($0.key) }.map(\.value))
    }
    for observer in launchObservers where pending.contains(observer.objectType?.identifier ?? "") {
      observer.notify(in: self)
    }
    return !pending.isEmpty
  }

  /// How many observer updates were delivered so far.
  public var observerDeliveries: Int { withState { $0.observerDeliveries } }
  /// How many of them had their completion handler called.
  public var observerCompletions: Int { withState { $0.observerCompletions } }

  /// Suspends until `count` observer completion handlers have been called
  /// (returns at once if they have): lets a test wait without timing.
  ///
  /// - Parameter count: The number of completions to wait for.
  public func waitForObserverCompletions(_ count: Int) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready: Bool = withState { state in
        if state.observerCompletions >= count { return true }
        state.completionWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// Counts a delivery and returns its completion handler, which counts its first call.
  func beginObserverDelivery() -> @Sendable () -> Void {
    withState { $0.observerDeliveries += 1 }
    let once = FirstCall()
    return { [self] in
      guard once.claim() else { return }
      let ready = withState { state -> [CheckedContinuation<Void, Never>] in
        state.observerCompletions += 1
        let count = state.observerCompletions
        let due = state.completionWaiters.filter { $0.count <= count }.map(\.continuation)
        state.completionWaiters.removeAll { $0.count <= count }
        return due
      }
      for continuation in ready { continuation.resume() }
    }
  }

  // MARK: What the store does

  /// The error a read starting now meets, if any.
  func readError(for type: HKObjectType, deviceSupported: Bool) -> HKError? {
    if !deviceSupported { return .make(.errorHealthDataUnavailable) }
    return withState { state in
      if !state.hasHealthKitEntitlement { return .missingEntitlement(Self.healthKitEntitlement) }
      if state.isRestricted { return .make(.errorHealthDataRestricted) }
      if state.isLocked { return .make(.errorDatabaseInaccessible) }
      if !state.requested.contains(type.identifier) { return .make(.errorAuthorizationNotDetermined) }
      if let code = state.queryFailure { return .make(code) }
      return nil
    }
  }

  /// Answers a read query as HealthKit does, on the handler queue: with the
  /// error reading `type` meets now, or else with what `read` finds (which
  /// may itself be an error, as `errorNoData`).
  ///
  /// - Parameters:
  ///   - query: The query, handed back to its handler.
  ///   - type: The type it reads.
  ///   - deviceSupported: Whether the device has HealthKit.
  ///   - read: The answer; called only when reading may start.
  ///   - deliver: Calls the query's handler with the answer, or `nil` and the error.
  func answer<Query: HKQuery, Answer>(
    _ query: Query, reading type: HKObjectType, deviceSupported: Bool, read: () -> Result<Answer, HKError>,
    deliver: @escaping @Sendable (Query, Answer?, (any Error)?) -> Void
  ) {
    let result = readError(for: type, deviceSupported: deviceSupported).map { .failure($0) } ?? read()
    let box = Unchecked((query, result))
    runHandler {
      switch box.value.1 {
      case .success(let answer): deliver(box.value.0, answer, nil)
      case .failure(let error): deliver(box.value.0, nil, error)
      }
    }
  }

  /// The samples an app sees: everything when reading is allowed, else only its own.
  func visibleSamples(of type: HKObjectType, matching predicate: NSPredicate?) -> [HKQuantitySample] {
    let own = HKSource.thisApp
    return withState { state in
      let readable = state.granted[type.identifier]?.read ?? false
      return state.samples.filter { sample in
        sample.sampleType.identifier == type.identifier
          && (readable || sample.sourceRevision.source == own)
          && PredicateInterpreter.matches(predicate, sample, missingKeyIsNull: state.missingMetadataKeyIsNull)
      }
    }
  }

  func recordExecution(of query: HKQuery) {
    withState { $0.executedQueries.append(String(describing: Swift.type(of: query))) }
  }

  func register(_ observer: HKObserverQuery) {
    withState { state in
      state.observers[ObjectIdentifier(observer)] = observer
      if state.isLaunching { state.launchObservers.insert(ObjectIdentifier(observer)) }
    }
  }

  func unregister(_ query: HKQuery) {
    withState { _ = $0.observers.removeValue(forKey: ObjectIdentifier(query)) }
  }

  /// Shows the prompt (when a type was not asked for yet) and records the answers.
  func answerPrompt(for identifiers: Set<String>, share: Set<String>) -> HKError? {
    withState { state in
      // What ends the app on a device: an NSInvalidArgumentException from the request itself.
      var exception: String?
      let refused = share.intersection(state.unshareableTypes).sorted()
      if !identifiers.isEmpty, !state.usageDescriptions.contains(Self.shareUsageDescription) {
        exception =
          "NSHealthShareUsageDescription must be set in the app's Info.plist in order to request read authorization"
      } else if !share.isEmpty, !state.usageDescriptions.contains(Self.updateUsageDescription) {
        exception =
          "NSHealthUpdateUsageDescription must be set in the app's Info.plist in order to request write authorization"
      } else if !refused.isEmpty {
        exception =
          "Authorization to share the following types is disallowed: \(refused.joined(separator: ", "))"
      }
      if let exception {
        state.raisedExceptions.append("NSInvalidArgumentException: " + exception)
        return HKError(.errorInvalidArgument, userInfo: [NSLocalizedDescriptionKey: exception])
      }
      if !state.hasHealthKitEntitlement { return .missingEntitlement(Self.healthKitEntitlement) }
      if state.isRestricted { return .make(.errorHealthDataRestricted) }
      if let code = state.authorizationFailure { return .make(code) }
      let fresh = identifiers.union(share).subtracting(state.requested)
      if !fresh.isEmpty { state.prompts += 1 }
      for identifier in fresh {
        let answer = state.answers[identifier] ?? state.defaultAnswer
        state.granted[identifier] = Answer(
          read: identifiers.contains(identifier) && answer.read,
          share: share.contains(identifier) && answer.share)
        state.requested.insert(identifier)
      }
      return nil
    }
  }

  static let healthKitEntitlement = "com.apple.developer.healthkit"
  static let backgroundDeliveryEntitlement = "com.apple.developer.healthkit.background-delivery"

  /// The error a save or background-delivery request meets for a missing entitlement, if any.
  func entitlementError(backgroundDelivery: Bool) -> HKError? {
    withState { state in
      if !state.hasHealthKitEntitlement { return .missingEntitlement(Self.healthKitEntitlement) }
      if backgroundDelivery, !state.hasBackgroundDeliveryEntitlement {
        return .missingEntitlement(Self.backgroundDeliveryEntitlement)
      }
      return nil
    }
  }

  func wasRequested(_ identifier: String) -> Bool { withState { $0.requested.contains(identifier) } }
  func grant(for identifier: String) -> Answer? { withState { $0.granted[identifier] } }

  /// What a statistics query sums: the merge of the sources in the
  /// person's Data Sources order for the type (``dataSourcesOrder(for:)``),
  /// or, in ``inflatesFilteredStatistics`` mode with a metadata filter in
  /// the predicate, the plain sum of every source.
  func statisticsSum(of samples: [HKQuantitySample], in interval: DateInterval, predicate: NSPredicate?)
    -> Double
  {
    guard let type = samples.first?.quantityType else { return 0 }
    if inflatesFilteredStatistics, PredicateInterpreter.hasMetadataCondition(predicate) {
      return DataSourcesMerge.plainSums(of: samples, in: interval, unit: type.baseUnit).values.reduce(0, +)
    }
    let order = dataSourcesOrder(for: HKQuantityTypeIdentifier(rawValue: type.identifier), among: samples)
    return DataSourcesMerge(order: order).total(of: samples, in: interval, unit: type.baseUnit)
  }

  /// Each source's own sum inside `interval`, unmerged: what
  /// `sumQuantity(for:)` answers under `.separateBySource`.
  func sumsBySource(of samples: [HKQuantitySample], in interval: DateInterval) -> [String: Double] {
    guard let type = samples.first?.quantityType else { return [:] }
    return DataSourcesMerge.plainSums(of: samples, in: interval, unit: type.baseUnit)
  }

  // MARK: Data Sources order

  /// The person's Data Sources order for a type, as bundle identifiers,
  /// highest priority first: what the person set with
  /// ``setDataSourcesOrder(_:for:)``, followed by the sources not in it in
  /// Apple's default order (typed-in entries, Apple's devices with the
  /// Watch above the iPhone, then other apps).
  ///
  /// - Parameter identifier: The quantity type.
  /// - Returns: The bundle identifiers of every source with samples of the type.
  public func dataSourcesOrder(for identifier: HKQuantityTypeIdentifier) -> [String] {
    let samples = withState { $0.samples.filter { $0.sampleType.identifier == identifier.rawValue } }
    return dataSourcesOrder(for: identifier, among: samples)
  }

  /// Reorders a type's Data Sources, as a person does by dragging sources in
  /// the Health app; the sources not named keep Apple's default order below them.
  ///
  /// - Parameters:
  ///   - origins: The sources, highest priority first.
  ///   - identifier: The quantity type.
  public func setDataSourcesOrder(_ origins: [Origin], for identifier: HKQuantityTypeIdentifier) {
    withState { $0.userOrder[identifier.rawValue] = origins.map(\.bundleIdentifier) }
  }

  func dataSourcesOrder(for identifier: HKQuantityTypeIdentifier, among samples: [HKQuantitySample])
    -> [String]
  {
    let chosen = withState { $0.userOrder[identifier.rawValue] ?? [] }
    return chosen + DataSourcesMerge.defaultOrder(of: samples).filter { !chosen.contains($0) }
  }
}

/// Carries a non-Sendable HealthKit object onto the handler queue.
struct Unchecked<Value>: @unchecked Sendable {
  // Safe to share: HealthKit's objects are immutable once made, and the value is only read on the
  // handler queue.
  let value: Value
  init(_ value: Value) { self.value = value }
}

/// Tells the first of several calls apart from the rest, from any thread.
///
/// StepKit's `OnceFlag` again, on purpose: the stand-in plays HealthKit, which
/// StepKit is built on, so it cannot import StepKit.
final class FirstCall: @unchecked Sendable {
  // Safe to share: `called` is read and written only under `lock`.
  private let lock = NSLock()
  private var called = false

  /// `true` for the first call only.
  func claim() -> Bool {
    lock.withLock {
      defer { called = true }
      return !called
    }
  }
}
