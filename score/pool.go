package score

// Pool adds up the matches, predicted and reference segments of several
// F1 results (one per episode) and computes precision, recall and F1 of
// the sums: the pooled ("micro") F1 over every segment of them, as
// WGO-Bench reports its figures over all its 743 segments. Matched is
// left nil (the indexes are per episode).
func Pool(fs ...F1) F1 {
	var p F1
	for _, f := range fs {
		p.Matches += f.Matches
		p.Predicted += f.Predicted
		p.Reference += f.Reference
	}
	p.rates()
	return p
}

// rates sets Precision, Recall and F1 from the counts (SCORING.md
// section 2): 0 where a denominator is 0.
func (f *F1) rates() {
	f.Precision, f.Recall, f.F1 = 0, 0, 0
	if f.Predicted > 0 {
		f.Precision = float64(f.Matches) / float64(f.Predicted)
	}
	if f.Reference > 0 {
		f.Recall = float64(f.Matches) / float64(f.Reference)
	}
	if f.Precision+f.Recall > 0 {
		f.F1 = 2 * f.Precision * f.Recall / (f.Precision + f.Recall)
	}
}
