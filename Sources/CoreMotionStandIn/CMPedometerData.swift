import Foundation

/// One pedometer answer (CoreMotion's `CMPedometerData`): the activity between two dates.
///
/// As on the device, the properties are read-only `NSNumber`s; `init()` makes an empty answer
/// (zero steps, no optional values).
open class CMPedometerData: NSObject {
  private let storedStartDate: Date
  private let storedEndDate: Date
  private let storedNumberOfSteps: NSNumber
  private let storedDistance: NSNumber?
  private let storedFloorsAscended: NSNumber?
  private let storedFloorsDescended: NSNumber?
  private let storedCurrentPace: NSNumber?
  private let storedCurrentCadence: NSNumber?
  private let storedAverageActivePace: NSNumber?

  /// The start of the query or update session.
  open var startDate: Date { storedStartDate }
  /// Queries: the requested end; updates: the time of the latest determination.
  open var endDate: Date { storedEndDate }
  /// The number of steps.
  open var numberOfSteps: NSNumber { storedNumberOfSteps }
  /// Metres walked or run; `nil` where distance is not available.
  open var distance: NSNumber? { storedDistance }
  /// Approximate flights of stairs climbed; `nil` where floor counting is not available.
  open var floorsAscended: NSNumber? { storedFloorsAscended }
  /// Approximate flights of stairs descended; `nil` where floor counting is not available.
  open var floorsDescended: NSNumber? { storedFloorsDescended }
  /// Seconds per metre at the moment of an update; `nil` for historical queries.
  open var currentPace: NSNumber? { storedCurrentPace }
  /// Steps per second at the moment of an update; `nil` for historical queries.
  open var currentCadence: NSNumber? { storedCurrentCadence }
  /// Seconds per metre over the active time; `nil` when the user did not move.
  open var averageActivePace: NSNumber? { storedAverageActivePace }

  /// Creates an empty answer: zero steps, no optional values, both dates "now".
  public override init() {
    let now = Date()
    storedStartDate = now
    storedEndDate = now
    storedNumberOfSteps = NSNumber(value: 0)
    storedDistance = nil
    storedFloorsAscended = nil
    storedFloorsDescended = nil
    storedCurrentPace = nil
    storedCurrentCadence = nil
    storedAverageActivePace = nil
    super.init()
  }

  init(
    _ activity: PedometerSimulator.Activity, start: Date, end: Date,
    availability: PedometerSimulator.Availability
  ) {
    storedStartDate = start
    storedEndDate = end
    storedNumberOfSteps = NSNumber(value: activity.steps)
    storedDistance = availability.distance ? NSNumber(value: activity.distanceMeters) : nil
    storedFloorsAscended = availability.floorCounting ? NSNumber(value: activity.floorsAscended) : nil
    storedFloorsDescended = availability.floorCounting ? NSNumber(value: activity.floorsDescended) : nil
    storedCurrentPace = nil
    storedCurrentCadence = nil
    storedAverageActivePace = nil
    super.init()
  }
}
