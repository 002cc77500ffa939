import StressCore

/// The rule both gates (`compare` and `ab`) judge a measured cell by, once
/// it has a ratio, an interval and a p-value: `regressed` (or `improved`)
/// needs the corrected test to be significant and the whole interval beyond
/// the tolerance on the worse (better) side; `unchanged` an interval inside
/// the tolerance; anything else is `inconclusive`.
enum ToleranceVerdict {
    /// The verdict and its reason. `lead` opens the reason (the paired gate's
    /// `median ratio 1.050 over 10 pairs`); `test` names the test in it;
    /// `hint` adds to the reason of an interval beyond the tolerance whose
    /// test is not significant (how many samples would do).
    static func classify(
        low lo: Double, high hi: Double, pValue p: Double, adjusted: Double, family: Int, tolerance: Double, alpha: Double,
        higherIsBetter: Bool, test: String, lead: String? = nil, hint: () -> String? = { nil }
    ) -> (ComparisonVerdict, String) {
        let band = (1 - tolerance)...(1 + tolerance)
        let tolerance = "±\(Formatting.percent(tolerance))"
        // Worse means a lower ratio for throughput, a higher one for times.
        let worseBeyond = higherIsBetter ? hi < band.lowerBound : lo > band.upperBound
        let betterBeyond = higherIsBetter ? lo > band.upperBound : hi < band.lowerBound
        var pText = "p = \(Formatting.pValue(p))"
        if family > 1 { pText += "; Holm-adjusted over \(family) cells: \(Formatting.pValue(adjusted))" }
        let opening = lead.map { $0 + ": " } ?? ""
        if worseBeyond || betterBeyond {
            guard adjusted < alpha else {
                var text = "\(opening)the interval lies beyond \(tolerance) but the \(test) is not significant (\(pText) ≥ \(Formatting.pValue(alpha)))"
                if let more = hint() { text += "; " + more }
                return (.inconclusive, text)
            }
            let side = worseBeyond ? "worse" : "better"
            return (worseBeyond ? .regressed : .improved, "\(lead.map { $0 + ", " } ?? "")\(side) beyond the \(tolerance) tolerance (\(pText))")
        }
        if band.contains(lo) && band.contains(hi) {
            return (.unchanged, "\(opening)the interval lies within \(tolerance)")
        }
        return (.inconclusive, "\(opening)the interval reaches beyond \(tolerance) without lying beyond it (too noisy to tell; \(pText))")
    }
}
