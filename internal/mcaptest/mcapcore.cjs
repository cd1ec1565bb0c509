// Reads an MCAP file with Foxglove's @mcap/core, both ways, and prints
// what it found as JSON for mcaptest.Read:
//   indexed: McapIndexedReader (footer, summary with its CRC, chunk
//            indexes, message indexes; chunk CRCs), read forward, in
//            reverse and topic by topic; the data section CRC is checked
//            here against DataEnd's, which the reader keeps but does
//            not check.
//   stream:  McapStreamReader, record by record from the start (chunk
//            CRCs), until it says the file is done.
//   decoded: per topic, its messages decoded with the channel's schema
//            as Foxglove Studio decodes them (@foxglove/rosmsg parses
//            ros1msg and ros2msg definitions; @foxglove/rosmsg-
//            serialization reads ros1, @foxglove/rosmsg2-serialization
//            cdr; JSON.parse json): how many decoded, how many did not
//            and the first error, and the first message decoded.
// Usage: NODE_PATH=.../node_modules node mcapcore.cjs FILE
"use strict";
const fs = require("fs");
const zlib = require("zlib");
const { McapIndexedReader, McapStreamReader } = require("@mcap/core");
const zstd = require("@foxglove/wasm-zstd");
const lz4 = require("@foxglove/wasm-lz4");
const { parse: parseDefinitions } = require("@foxglove/rosmsg");
const { MessageReader: ROS1Reader } = require("@foxglove/rosmsg-serialization");
const { MessageReader: CDRReader } = require("@foxglove/rosmsg2-serialization");

const decompressHandlers = {
  zstd: (buf, size) => zstd.decompress(buf, Number(size)),
  lz4: (buf, size) => lz4(buf, Number(size)),
};

const b64 = (u8) => Buffer.from(u8.buffer, u8.byteOffset, u8.byteLength).toString("base64");
const message = (m) => [m.channelId, m.sequence, String(m.logTime), String(m.publishTime), b64(m.data)];

async function openIndexed(data) {
  const readable = {
    size: async () => BigInt(data.byteLength),
    read: async (offset, size) => data.subarray(Number(offset), Number(offset + size)),
  };
  return McapIndexedReader.Initialize({ readable, decompressHandlers });
}

async function indexed(data) {
  const r = await openIndexed(data);
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

// decoderOf returns the channel's message decoder, as Foxglove Studio
// picks it by the schema's and the messages' encodings.
function decoderOf(channel, schema) {
  const enc = `${schema ? schema.encoding : ""} ${channel.messageEncoding}`;
  const text = schema && new TextDecoder().decode(schema.data);
  switch (enc) {
    case "ros1msg ros1": {
      const reader = new ROS1Reader(parseDefinitions(text, { ros2: false }));
      return (data) => reader.readMessage(data);
    }
    case "ros2msg cdr": {
      const reader = new CDRReader(parseDefinitions(text, { ros2: true }));
      return (data) => reader.readMessage(data);
    }
    case "jsonschema json":
    case " json":
      return (data) => JSON.parse(new TextDecoder().decode(data));
  }
  throw new Error(`no decoder for schema and message encodings "${enc}"`);
}

// asJSON: a Uint8Array as base64, other typed arrays as arrays, a
// BigInt as a number when exact, else a decimal string (NaN and
// infinities become null, as JSON.stringify makes them).
function asJSON(_key, v) {
  if (typeof v === "bigint") return Number.isSafeInteger(Number(v)) ? Number(v) : String(v);
  if (v instanceof Uint8Array) return b64(v);
  if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (typeof x === "bigint" ? asJSON("", x) : x));
  return v;
}

async function decoded(data) {
  const r = await openIndexed(data);
  const out = {};
  const decoders = new Map();
  for (const c of r.channelsById.values()) {
    out[c.topic] = out[c.topic] || { count: 0, failed: 0, error: "", first: null };
    try {
      decoders.set(c.id, decoderOf(c, r.schemasById.get(c.schemaId)));
    } catch (e) {
      decoders.set(c.id, e);
    }
  }
  for await (const m of r.readMessages()) {
    const c = r.channelsById.get(m.channelId);
    const d = out[c.topic];
    try {
      const decode = decoders.get(m.channelId);
      if (decode instanceof Error) throw decode;
      const v = decode(m.data);
      if (d.count++ === 0) d.first = JSON.parse(JSON.stringify(v, asJSON));
    } catch (e) {
      if (d.failed++ === 0) d.error = `${c.topic} message ${m.sequence}: ${(e && e.message) || e}`;
    }
  }
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
  process.stdout.write(JSON.stringify({ indexed: await indexed(data), decoded: await decoded(data), stream: stream(data) }));
})().catch((e) => {
  process.stderr.write(String((e && e.stack) || e) + "\n");
  process.exit(1);
});
