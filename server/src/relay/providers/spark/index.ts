/** The iFlytek Spark folder's public entry: the adaptor (signed WebSocket API, or the HTTP API with a password). */
export { sparkAdaptor, SPARK_BASE_URL } from './spark-adaptor.js';
