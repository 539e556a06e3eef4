/** Incremental mode of the sql and view nodes: the rows after a kept position, and that position. */
export { IncrementalMode } from './incremental';
