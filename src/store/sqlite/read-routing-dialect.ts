import {
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  SelectQueryNode,
  SqliteDialect,
  type SqliteDialectConfig,
  type TransactionSettings,
} from "kysely";
import type { SqliteReadPool } from "./read-pool.js";

/**
 * Kysely's SQLite dialect with its selects sent to a `SqliteReadPool`, off the event loop. Everything
 * else (writes, raw SQL, and every statement of a transaction, selects included) runs as before on
 * the one connection of the process, under Kysely's lock: a select never waits for that lock, and a
 * transaction still sees its own writes.
 */
export class ReadRoutingSqliteDialect extends SqliteDialect {
  readonly #pool: SqliteReadPool;

  constructor(config: SqliteDialectConfig, pool: SqliteReadPool) {
    super(config);
    this.#pool = pool;
  }

  override createDriver(): Driver {
    return new ReadRoutingDriver(super.createDriver(), this.#pool);
  }
}

/** A connection as Kysely holds it: the main one is taken only when a statement needs it. */
class RoutedConnection implements DatabaseConnection {
  main: DatabaseConnection | undefined;

  constructor(
    private readonly driver: Driver,
    private readonly pool: SqliteReadPool,
  ) {}

  async mainConnection(): Promise<DatabaseConnection> {
    this.main ??= await this.driver.acquireConnection();
    return this.main;
  }

  async executeQuery<Row>(query: CompiledQuery): Promise<QueryResult<Row>> {
    if (this.main === undefined && SelectQueryNode.is(query.query)) {
      return { rows: (await this.pool.select(query.sql, query.parameters, false)) as Row[] };
    }
    return (await this.mainConnection()).executeQuery<Row>(query);
  }

  async *streamQuery<Row>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<Row>> {
    yield* (await this.mainConnection()).streamQuery<Row>(query, chunkSize);
  }
}

class ReadRoutingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly pool: SqliteReadPool,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this.inner, this.pool);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    await this.inner.beginTransaction(await routed(connection).mainConnection(), settings);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.commitTransaction(await routed(connection).mainConnection());
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.inner.rollbackTransaction(await routed(connection).mainConnection());
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.savepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler["compileQuery"],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(await routed(connection).mainConnection(), name, compileQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const main = routed(connection).main;
    if (main) await this.inner.releaseConnection(main);
  }

  async destroy(): Promise<void> {
    await this.pool.close();
    await this.inner.destroy();
  }
}

function routed(connection: DatabaseConnection): RoutedConnection {
  return connection as RoutedConnection;
}
