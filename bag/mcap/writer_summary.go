package mcap

// finish ends the data section with DataEnd (the CRC of every byte
// before it), writes the summary: schemas, channels, statistics, chunk
// indexes and metadata indexes, each a group a Summary Offset record
// points at, then the footer (with the CRC of the summary through the
// footer's offsets) and the closing magic.
func (w *Writer) finish() error {
	b, at := beginRecord(nil, opDataEnd)
	if err := w.out.write(endRecord(putU32(b, w.out.crc), at)); err != nil {
		return err
	}
	w.out.crc = 0 // from here: the summary CRC
	summaryStart := w.out.n
	var offsets []byte
	for _, g := range w.summaryGroups() {
		if len(g.records) == 0 {
			continue
		}
		o, at := beginRecord(offsets, opSummaryOffset)
		offsets = endRecord(putU64(putU64(append(o, g.op), uint64(w.out.n)), uint64(len(g.records))), at)
		if err := w.out.write(g.records); err != nil {
			return err
		}
	}
	offsetsStart := w.out.n
	if err := w.out.write(offsets); err != nil {
		return err
	}
	f, at := beginRecord(nil, opFooter)
	f = putU64(putU64(f, uint64(summaryStart)), uint64(offsetsStart))
	f = putU32(f, 0) // the CRC's room, so endRecord counts it
	f = endRecord(f, at)[:len(f)-4]
	if err := w.out.write(f); err != nil {
		return err
	}
	if err := w.out.write(append(putU32(nil, w.out.crc), Magic...)); err != nil {
		return err
	}
	return w.out.w.Flush()
}

type summaryGroup struct {
	op      byte
	records []byte
}

// summaryGroups lists the summary's records by group, in file order.
func (w *Writer) summaryGroups() []summaryGroup {
	var schemas, channels []byte
	for _, s := range w.schemas {
		schemas = append(schemas, s.record...)
	}
	for _, c := range w.channels {
		channels = append(channels, c.record...)
	}
	return []summaryGroup{
		{opSchema, schemas},
		{opChannel, channels},
		{opStatistics, w.statisticsRecord()},
		{opChunkIndex, w.chunkIndexes},
		{opMetadataIndex, w.metadataIndexes},
	}
}

// statisticsRecord encodes the Statistics record; every channel has a
// count, 0 when it carried no message.
func (w *Writer) statisticsRecord() []byte {
	s := w.stats
	b, at := beginRecord(nil, opStatistics)
	b = putU32(putU16(putU64(b, s.messages), uint16(len(w.schemas))), uint32(len(w.channels)))
	b = putU32(putU32(putU32(b, 0), uint32(s.metadata)), s.chunks) // no attachments
	b = putU32(putU64(putU64(b, s.start), s.end), uint32(len(w.channels)*(2+8)))
	for i, c := range w.channels {
		b = putU64(putU16(b, uint16(i+1)), c.messages)
	}
	return endRecord(b, at)
}
