// The Universal Sentence Encoder lite's forward pass written out as TensorFlow.js operations on the model's own
// weights, instead of TensorFlow.js walking the converted graph node by node. The graph spends half of its 256 nodes
// computing shapes (Shape, StridedSlice, Pack, Prod, …) and the graph executor's bookkeeping costs about a fifth of an
// embedding; this runs the same arithmetic in about 110 operations and the vectors agree with the graph's to float
// rounding (tested against it in use-forward.test.ts).
//
// The model: token ids (at most 128 per text) → 256-d embeddings + a sinusoidal timing signal → two transformer
// layers (4 heads; layer 0 widens 256 → 512 with a projected residual) → the mean over each text's tokens → a 512×512
// tanh layer → L2 normalisation. Plain JavaScript, like use-model.js, because the worker thread runs it unbuilt.

const ROOT = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const STACK = `${ROOT}TransformerStack/`;
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/';

/** Length of every vector the forward pass returns. */
export const DIMENSION = 512;

/** Texts are cut to this many tokens (the graph's ClipToMaxLength). */
export const MAX_TOKENS = 128;

/**
 * Reads the weights the forward pass needs out of a loaded GraphModel (`graph.weights`: name → tensors), checking
 * every shape; a model whose weights differ throws here, at load, naming the weight.
 */
export function useWeights(graph) {
  const all = graph.weights;
  const take = (name, shape) => {
    const tensor = all[name]?.[0];
    if (!tensor) throw new Error(`the model has no weight ${name}`);
    if (shape && (tensor.shape.length !== shape.length || tensor.shape.some((d, i) => d !== shape[i]))) {
      throw new Error(`the model's weight ${name} has shape [${tensor.shape}], expected [${shape}]`);
    }
    return tensor;
  };
  const scalar = (name) => take(name, []).dataSync()[0];
  const norm = (prefix, width) => ({
    scale: take(`${prefix}/layer_norm/layer_norm_scale/ConcatPartitions/concat`, [width]),
    bias: take(`${prefix}/layer_norm/layer_norm_bias/ConcatPartitions/concat`, [width]),
  });
  const layer = (n, width) => {
    const own = `${ROOT}Layer_${n}/TransformerLayer/`;
    const kernel = `${KERNELS}Layer_${n}/TransformerLayer/MultiheadAttention/`;
    const stack = `${STACK}Layer_${n}/TransformerLayer/`;
    return {
      width,
      attentionNorm: norm(`${own}layer_prepostprocess`, width),
      qkv: take(`${kernel}qkv_transform_single/kernel/part_0`, [1, 1, width, 3 * width]),
      qkvBias: take(`${own}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`, [3 * width]),
      queryScale: scalar(`${stack}MultiheadAttention/mul/y`),
      output: take(`${kernel}output_transform_single/kernel/part_0`, [1, 1, width, 512]),
      outputBias: take(`${own}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`, [512]),
      ffnNorm: norm(`${own}FFN/layer_prepostprocess`, 512),
      ffnIn: take(`${stack}FFN/conv1/Tensordot/Reshape_1`, [512, 1536]),
      ffnInBias: take(`${own}FFN/conv1/bias/ConcatPartitions/concat`, [1536]),
      ffnOut: take(`${stack}FFN/conv2/Tensordot/Reshape_1`, [1536, 512]),
      ffnOutBias: take(`${own}FFN/conv2/bias/ConcatPartitions/concat`, [512]),
    };
  };
  const maxTokens = scalar(`${ROOT.replace('Encode/', '')}ClipToMaxLength/Less/y`);
  if (maxTokens !== MAX_TOKENS) throw new Error(`the model clips texts to ${maxTokens} tokens, expected ${MAX_TOKENS}`);
  return {
    embeddings: take('module/Embeddings_en', [8002, 256]),
    timescales: take(`${STACK}Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`, [1, 128]),
    residual: take(`${ROOT}Layer_0/TransformerLayer/dense/kernel/ConcatPartitions/concat`, [256, 512]),
    residualBias: take(`${ROOT}Layer_0/TransformerLayer/dense/bias/ConcatPartitions/concat`, [512]),
    layers: [layer(0, 256), layer(1, 512)],
    epsilon: scalar(`${STACK}Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x`),
    paddingBias: scalar(
      `${STACK}Layer_1/TransformerLayer/MultiheadAttention/DotProductAttention/attention_bias_ignore_padding/mul/y`,
    ),
    hidden: take('module/Encoder_en/hidden_layers/tanh_layer_0/weights', [512, DIMENSION]),
    hiddenBias: take('module/Encoder_en/hidden_layers/tanh_layer_0/bias', [DIMENSION]),
    normFloor: scalar('module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y'),
  };
}

/**
 * Embeds a batch: `rows` holds each text's token ids (at least one row with tokens; a row without any gets the
 * model's vector of an empty text, as in the graph). Resolves to one Float32Array of
 * `rows.length × 512` values. `tf` is the TensorFlow.js namespace the weights live in.
 */
export async function forward(tf, w, rows) {
  const batch = rows.length;
  let width = 0;
  let count = 0;
  for (const row of rows) {
    const n = Math.min(row.length, MAX_TOKENS);
    width = Math.max(width, n);
    count += n;
  }
  if (width === 0) throw new Error('a batch needs at least one text with tokens');
  // Tokens in row-major order: their ids, positions and (when rows differ in length) cells of the [batch, width] grid.
  const ids = new Int32Array(count);
  const positions = new Float32Array(count);
  const cells = new Int32Array(count * 2);
  const lengths = new Float32Array(batch);
  // The mean divides by the token count, and by 1 for a text without tokens (the graph's Maximum(length, 1)).
  const divisors = new Float32Array(batch);
  let k = 0;
  for (let b = 0; b < batch; b++) {
    const n = Math.min(rows[b].length, MAX_TOKENS);
    lengths[b] = n;
    divisors[b] = Math.max(n, 1);
    for (let p = 0; p < n; p++, k++) {
      ids[k] = rows[b][p];
      positions[k] = p;
      cells[2 * k] = b;
      cells[2 * k + 1] = p;
    }
  }
  const padded = count !== batch * width;

  const out = tf.tidy(() => {
    const grid = padded ? tf.tensor2d(cells, [count, 2], 'int32') : null;
    // Token rows [count, c] ↔ the grid [batch, width, c]; without padding both are the same values reshaped.
    const toGrid = (x) =>
      grid ? tf.scatterND(grid, x, [batch, width, x.shape[1]]) : tf.reshape(x, [batch, width, -1]);
    const toTokens = (x) => (grid ? tf.gatherND(x, grid) : tf.reshape(x, [count, -1]));
    // Added to attention logits: a large negative number on the padding cells.
    const keyBias = padded
      ? tf.reshape(tf.mul(tf.tensor2d(paddingMask(lengths, width), [batch, width]), w.paddingBias), [
          batch,
          1,
          1,
          width,
        ])
      : null;

    const embedded = tf.gather(w.embeddings, tf.tensor1d(ids, 'int32'));
    const angles = tf.mul(tf.tensor2d(positions, [count, 1]), w.timescales);
    const timing = tf.concat([tf.sin(angles), tf.cos(angles)], 1);
    // The graph adds the embedding to (embedding + timing signal).
    const input = tf.add(embedded, tf.add(embedded, timing));
    const residual = toGrid(tf.add(tf.matMul(input, w.residual), w.residualBias));

    let x = toGrid(input);
    for (const [n, layer] of w.layers.entries()) {
      const attended = attention(tf, layerNorm(tf, x, layer.attentionNorm, w.epsilon), layer, keyBias);
      x = tf.add(attended, n === 0 ? residual : x);
      const hidden = toTokens(layerNorm(tf, x, layer.ffnNorm, w.epsilon));
      const up = tf.relu(tf.add(tf.matMul(hidden, layer.ffnIn), layer.ffnInBias));
      x = tf.add(toGrid(tf.add(tf.matMul(up, layer.ffnOut), layer.ffnOutBias)), x);
    }

    // Mean over each text's tokens (padding cells weigh nothing), then the tanh layer and L2 normalisation.
    const counted = padded ? tf.mul(x, tf.tensor3d(tokenMask(lengths, width), [batch, width, 1])) : x;
    const mean = tf.div(tf.sum(counted, 1), tf.tensor2d(divisors, [batch, 1]));
    const z = tf.tanh(tf.add(tf.matMul(mean, w.hidden), w.hiddenBias));
    return tf.mul(z, tf.rsqrt(tf.maximum(tf.sum(tf.square(z), 1, true), w.normFloor)));
  });
  try {
    return await out.data();
  } finally {
    out.dispose();
  }
}

/** Layer normalisation over the last axis, in the graph's order of operations. */
function layerNorm(tf, x, { scale, bias }, epsilon) {
  const centred = tf.sub(x, tf.mean(x, -1, true));
  const inverse = tf.rsqrt(tf.add(tf.mean(tf.square(centred), -1, true), epsilon));
  return tf.add(tf.mul(tf.mul(scale, inverse), centred), bias);
}

/** Multi-head self-attention (4 heads) on [batch, width, c] with the 1×1 convolutions the graph uses. */
function attention(tf, x, layer, keyBias) {
  const [batch, width, c] = x.shape;
  const heads = 4;
  const qkv = tf.squeeze(tf.add(tf.conv2d(tf.expandDims(x, 2), layer.qkv, 1, 'valid'), layer.qkvBias), [2]);
  const [q, k, v] = tf.split(qkv, 3, 2);
  const split = (t) => tf.transpose(tf.reshape(t, [batch, width, heads, c / heads]), [0, 2, 1, 3]);
  let logits = tf.matMul(tf.mul(split(q), layer.queryScale), split(k), false, true);
  if (keyBias) logits = tf.add(logits, keyBias);
  const mixed = tf.reshape(tf.transpose(tf.matMul(tf.softmax(logits), split(v)), [0, 2, 1, 3]), [batch, width, c]);
  return tf.squeeze(tf.add(tf.conv2d(tf.expandDims(mixed, 2), layer.output, 1, 'valid'), layer.outputBias), [2]);
}

/** 1 on the padding cells of a [batch, width] grid, 0 on tokens. */
function paddingMask(lengths, width) {
  const mask = new Float32Array(lengths.length * width);
  for (let b = 0; b < lengths.length; b++) mask.fill(1, b * width + lengths[b], (b + 1) * width);
  return mask;
}

/** 1 on the token cells of a [batch, width] grid, 0 on padding. */
function tokenMask(lengths, width) {
  const mask = new Float32Array(lengths.length * width);
  for (let b = 0; b < lengths.length; b++) mask.fill(1, b * width, b * width + lengths[b]);
  return mask;
}
