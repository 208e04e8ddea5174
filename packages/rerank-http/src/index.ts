/** `@mem/rerank-http`: a mem `Reranker` over HTTP rerank endpoints. Every name here is listed in README.md. */
export { createHttpReranker, type HttpRerankerOptions } from './http-reranker.js';
