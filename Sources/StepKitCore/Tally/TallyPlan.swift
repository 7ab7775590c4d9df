/// What every part of a tally works from.
struct TallyPlan {
  let options: CountingOptions
  let resolved: ResolvedRanking
  let geometry: BucketGeometry
  let zone: ZoneOffsets?
  let fixed: ClosedRange<Int64>?
  /// Breakdown entries per bucket.
  let width: Int
  /// The lowest and highest UTC offset any sample can be bucketed with, ms.
  let lowestOffsetMs: Int64
  let highestOffsetMs: Int64
  /// The log's blocks in order of start, for every part.
  let blocks: BlocksByStart
  /// Hour-long slots from the day start (local clock hours when the day
  /// starts on the hour): the unit of ``Tally/Bucket/hoursWithData``.
  let hourSlots: BucketGeometry
  /// The most samples a merge bin keeps before it is merged in passes.
  let itemLimit: Int
}
