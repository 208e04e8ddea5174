export {
  createLocalEmbedder,
  LOCAL_EMBEDDER_DIMENSION,
  LOCAL_EMBEDDER_ID,
  type LocalEmbedder,
  type LocalEmbedderOptions,
} from './local-embedder.js';
