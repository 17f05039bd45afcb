// The Node.js side of the tfjs adapter: one long-lived process per suite worker, fed one request per
// line on stdin, answering one line per request on stdout (JSON; array bytes as base64).
//
// A request: {backend: "cpu" | "wasm", dtype, shape, data, split, axis}. `data` is the array's bytes in
// little-endian order (complex64 as interleaved float32 pairs, bool as one byte per element), or for
// strings a list of base64 UTF-8 byte strings. `split` is a number or an array of numbers; `axis` is a
// number or null (TF.js's default then applies). Every request builds its own tensor and its own split
// array, since TF.js may write into the arguments it is given (its size list's -1 is replaced in place).
//
// An answer: {pieces: [{shape, data}]} with the same encodings, or {error: {name, message}} for anything
// TF.js threw. Nothing here checks a request: refusals are TF.js's.
import * as readline from 'node:readline';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-wasm';

const VIEWS = {float32: Float32Array, int32: Int32Array, bool: Uint8Array};

function bytes(base64) {
  const buffer = Buffer.from(base64, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength).slice();
}

function typed(View, base64) {
  return new View(bytes(base64).buffer);
}

function tensorOf(request) {
  const {dtype, shape, data} = request;
  if (dtype === 'string') return tf.tensor(data.map(bytes), shape, 'string');
  if (dtype === 'complex64') {
    const pairs = typed(Float32Array, data);
    const real = pairs.filter((_, i) => i % 2 === 0);
    const imag = pairs.filter((_, i) => i % 2 === 1);
    return tf.complex(tf.tensor(real, shape, 'float32'), tf.tensor(imag, shape, 'float32'));
  }
  return tf.tensor(typed(VIEWS[dtype], data), shape, dtype);
}

function encoded(piece) {
  if (piece.dtype === 'string') {
    return tf.backend().readSync(piece.dataId).map((value) => Buffer.from(value).toString('base64'));
  }
  if (piece.dtype === 'complex64') {
    const real = tf.real(piece).dataSync();
    const imag = tf.imag(piece).dataSync();
    const pairs = new Float32Array(real.length * 2);
    real.forEach((value, i) => { pairs[2 * i] = value; pairs[2 * i + 1] = imag[i]; });
    return Buffer.from(pairs.buffer).toString('base64');
  }
  const values = piece.dataSync();
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength).toString('base64');
}

async function answer(request) {
  if (tf.getBackend() !== request.backend) {
    if (!(await tf.setBackend(request.backend))) throw new Error(`backend ${request.backend} failed to start`);
  }
  return tf.tidy(() => {
    const x = tensorOf(request);
    const split = Array.isArray(request.split) ? [...request.split] : request.split;
    const pieces = request.axis === null ? tf.split(x, split) : tf.split(x, split, request.axis);
    return {pieces: pieces.map((piece) => ({shape: piece.shape, data: encoded(piece)}))};
  });
}

const lines = readline.createInterface({input: process.stdin, crlfDelay: Infinity});
for await (const line of lines) {
  let reply;
  try {
    reply = await answer(JSON.parse(line));
  } catch (error) {
    reply = {error: {name: error?.name ?? typeof error, message: String(error?.message ?? error)}};
  }
  process.stdout.write(JSON.stringify(reply) + '\n');
}
