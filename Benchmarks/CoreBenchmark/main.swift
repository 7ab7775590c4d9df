// Merges and buckets synthetic samples and prints throughput and memory.
//
//   swift run -c release --package-path Benchmarks core-benchmark [SAMPLES]
//     [--unit day|hour|week|month] [--zone Area/City]
//
// Four sources over ten years, each writing time-ordered samples: an Apple
// Watch and an iPhone that overlap most of the day, a third-party app, and a
// few typed-in entries.
import BenchmarkSupport
import Foundation
import StepKitCore

func seconds(_ body: () -> Void) -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

var arguments = Array(CommandLine.arguments.dropFirst())
var total = 10_000_000
var unit = BucketUnit.day
var rule = TimeZoneRule.recorded
while let argument = arguments.first {
  arguments.removeFirst()
  switch argument {
  case "--unit":
    unit = arguments.first.flatMap(BucketUnit.init(rawValue:)) ?? .day
    arguments.removeFirst()
  case "--zone":
    rule = arguments.first.flatMap(TimeZoneRule.init) ?? .recorded
    arguments.removeFirst()
  default: total = Int(argument) ?? total
  }
}

struct Generator {
  var state: UInt64 = 0x5EED
  mutating func next(_ bound: Int) -> Int {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return Int((z ^ (z >> 31)) % UInt64(bound))
  }
}

let rssBefore = peakResidentBytes()
var log = SampleLog()
let tenYearsMs: Int64 = 10 * 365 * 86_400_000
let startMs: Int64 = 1_483_228_800_000  // 2017-01-01
var rng = Generator()
let watch = log.origin(source: "Apple Watch", device: Device(model: "Watch", hardware: "Watch6,1"))!
let phone = log.origin(source: "iPhone", device: Device(model: "iPhone", hardware: "iPhone14,2"))!
let app = log.origin(source: "Pedometer++", device: nil)!
let typed = log.origin(source: "Health", device: nil)!
// Shares of the samples: watch 45 %, phone 45 %, app 9.9 %, typed 0.1 %.
let plan: [(OriginID, Int, Bool)] = [
  (watch, total * 45 / 100, false), (phone, total * 45 / 100, false),
  (app, total - total * 90 / 100 - total / 1000, false), (typed, total / 1000, true),
]
log.reserveCapacity(total)
let ingest = seconds {
  for (origin, count, userEntered) in plan {
    let stride = tenYearsMs / Int64(max(count, 1))
    var t = startMs
    for _ in 0..<count {
      let length = Int64(rng.next(Int(stride * 2)))
      let offset = [28_800, 3600, 7200, -18_000][rng.next(97) == 0 ? rng.next(4) : 0]
      log.append(
        kind: rng.next(3) == 0 ? .distance : .steps, startMs: t, endMs: t + length,
        value: Double(rng.next(400)), utcOffsetSeconds: offset, origin: origin,
        userEntered: userEntered)
      t += stride - stride / 8 + Int64(rng.next(Int(stride / 4)))
    }
  }
}
let rssAfterIngest = peakResidentBytes()
var tally: Tally?
let merge = seconds { tally = log.tally(CountingOptions(unit: unit, timeZone: rule)) }
let rssPeak = peakResidentBytes()
guard let tally else { exit(1) }

func rate(_ count: Int, _ seconds: Double) -> String {
  String(format: "%.1f M samples/s", Double(count) / seconds / 1e6)
}
print("core-benchmark: \(log.count) samples, 4 sources, 10 years, by \(unit.rawValue), time zone \(rule)")
print(String(format: "  append (ingest):         %.3f s  %@", ingest, rate(log.count, ingest)))
print(String(format: "  merge + buckets (tally): %.3f s  %@", merge, rate(log.count, merge)))
print(
  String(
    format: "  stored sample size:      %.2f bytes (encoded blocks)",
    Double(log.storedSampleBytes) / Double(max(log.count, 1))))
print(
  String(
    format: "  peak RSS after ingest:   %.1f MiB (%.1f bytes/sample over the baseline)",
    Double(rssAfterIngest) / 1_048_576, Double(rssAfterIngest - rssBefore) / Double(max(log.count, 1))))
print(String(format: "  peak RSS during tally:   %.1f MiB", Double(rssPeak) / 1_048_576))
print(
  "  buckets: \(tally.buckets.count), total steps \(tally.total.roundedSteps), raw \(tally.total.roundedRawSteps)"
)
