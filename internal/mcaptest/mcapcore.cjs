// Reads an MCAP file with Foxglove's @mcap/core, both ways, and prints
// what it found as JSON for mcaptest.Read:
//   indexed: McapIndexedReader (footer, summary with its CRC, chunk
//            indexes, message indexes; chunk CRCs), read forward, in
//            reverse and topic by topic; the data section CRC is checked
//            here against DataEnd's, which the reader keeps but does
//            not check.
//   stream:  McapStreamReader, record by record from the start (chunk
//            CRCs), until it says the file is done.
// Usage: NODE_PATH=.../node_modules node mcapcore.cjs FILE
"use strict";
const fs = require("fs");
const zlib = require("zlib");
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const zstd = require("@foxglove/wasm-zstd");
const lz4 = require("@foxglove/wasm-lz4");

const decompressHandlers = {
  zstd: (buf, size) => zstd.decompress(buf, Number(size)),
  lz4: (buf, size) => lz4(buf, Number(size)),
};

const b64 = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("base64");
const message = (m) => [m.channelId, m.sequence, String(m.logTime), String(m.publishTime), b64(m.data)];

async function indexed(data) {
  const readable = {
    size: async () => BigInt(data.byteLength),
    read: async (offset, size) => data.subarray(Number(offset), Number(offset + size)),
  };
  const r = await McapIndexedReader.Initialize({ readable, decompressHandlers });
  const out = {
    profile: r.header.profile,
    library: r.header.library,
    compressions: r.chunkIndexes.map((c) => c.compression),
    schemas: [...r.schemasById.values()].map((s) => ({ id: s.id, name: s.name, encoding: s.encoding, data: b64(s.data) })),
    channels: [...r.channelsById.values()].map((c) => ({
      id: c.id, schemaId: c.schemaId, topic: c.topic, messageEncoding: c.messageEncoding,
      metadata: Object.fromEntries(c.metadata),
    })),
    statistics: r.statistics && {
      messageCount: String(r.statistics.messageCount),
      chunkCount: r.statistics.chunkCount,
      metadataCount: r.statistics.metadataCount,
      channelMessageCounts: Object.fromEntries([...r.statistics.channelMessageCounts].map(([k, v]) => [k, String(v)])),
    },
    dataCrcMatches: r.dataSectionCrc === zlib.crc32(data.subarray(0, Number(r.dataEndOffset))),
    messages: [],
    reverse: [],
    byTopic: {},
    metadata: [],
  };
  for await (const m of r.readMessages()) out.messages.push(message(m));
  for await (const m of r.readMessages({ reverse: true })) out.reverse.push(message(m));
  for (const c of r.channelsById.values()) {
    let n = 0;
    for await (const m of r.readMessages({ topics: [c.topic] })) {
      if (m.channelId !== c.id) throw new Error(`topic ${c.topic} gave a message of channel ${m.channelId}`);
      n++;
    }
    out.byTopic[c.topic] = n;
  }
  for await (const m of r.readMetadata()) out.metadata.push({ name: m.name, metadata: Object.fromEntries(m.metadata) });
  return out;
}

function stream(data) {
  const r = new McapStreamReader({ decompressHandlers, validateCrcs: true });
  r.append(data);
  const out = { records: {}, messages: [], done: false };
  for (let rec; (rec = r.nextRecord()); ) {
    out.records[rec.type] = (out.records[rec.type] || 0) + 1;
    if (rec.type === "Message") out.messages.push(message(rec));
  }
  out.done = r.done();
  return out;
}

(async () => {
  await zstd.isLoaded;
  await lz4.isLoaded;
  const data = new Uint8Array(fs.readFileSync(process.argv[2]));
  process.stdout.write(JSON.stringify({ indexed: await indexed(data), stream: stream(data) }));
})().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + "\n");
  process.exit(1);
});
