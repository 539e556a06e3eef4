import type { PositionLease, PositionRows, StoredPosition } from '../api';
import type { StateStore } from './state-store';

/** The incremental position's table in the embedded store: one row per node that has a position. */
export const POSITION_FEATURE = 'incremental';
export const POSITION_SCHEMA: readonly string[] = [
  `CREATE TABLE incremental_position (
    node TEXT PRIMARY KEY,
    watermark_column TEXT NOT NULL,
    key_column TEXT NOT NULL,
    watermark TEXT NOT NULL,
    tie_key TEXT,
    rows_sent INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) WITHOUT ROWID`,
];

interface Raw {
  watermark_column: string;
  key_column: string;
  watermark: string;
  tie_key: string | null;
  rows_sent: number;
}

/**
 * One node's position in the embedded store. One copy uses the file and the node runs one run at a
 * time (runtime/incremental), so the lease is this copy's at once and no write is ever fenced.
 */
export class EmbeddedPositionRows implements PositionRows {
  constructor(
    private readonly store: StateStore,
    readonly node: string,
  ) {
    store.migrate(POSITION_FEATURE, POSITION_SCHEMA);
  }

  async read(): Promise<StoredPosition | undefined> {
    const row = this.store.attempt(
      () =>
        this.store
          .statement(
            'SELECT watermark_column, key_column, watermark, tie_key, rows_sent FROM incremental_position ' +
              'WHERE node = ?',
          )
          .get(this.node) as Raw | undefined,
      'read an incremental position',
    );
    return row
      ? {
          watermarkColumn: row.watermark_column,
          keyColumn: row.key_column,
          watermark: row.watermark,
          tieKey: row.tie_key,
          rowsSent: Number(row.rows_sent),
        }
      : undefined;
  }

  async acquire(): Promise<PositionLease> {
    const position = await this.read();
    return {
      position,
      write: async (p) => this.write(p),
      clear: async () => {
        this.store.transaction(() => {
          this.store.statement('DELETE FROM incremental_position WHERE node = ?').run(this.node);
        }, 'rewind an incremental position');
      },
      release: async () => undefined,
    };
  }

  private write(p: StoredPosition): void {
    this.store.transaction(() => {
      this.store
        .statement(`INSERT INTO incremental_position
          (node, watermark_column, key_column, watermark, tie_key, rows_sent, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (node) DO UPDATE SET watermark_column = excluded.watermark_column,
          key_column = excluded.key_column, watermark = excluded.watermark, tie_key = excluded.tie_key,
          rows_sent = excluded.rows_sent, updated_at = excluded.updated_at`)
        .run(this.node, p.watermarkColumn, p.keyColumn, p.watermark, p.tieKey, p.rowsSent, Date.now());
    }, 'keep an incremental position');
  }
}
