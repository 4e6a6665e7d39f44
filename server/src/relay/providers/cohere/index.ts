/** The Cohere folder's public entry: the adaptor (v2 chat and embeddings, v1 chat for `-internet`). */
export { cohereAdaptor } from './cohere-adaptor.js';
