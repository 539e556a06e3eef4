// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { DatabasesApi, inputError, plainJson, Redactor, redactSecretFields, type DatabaseSpec } from './client';
import { DATABASE_NODE, type DatabaseNodeConfig, type DatabaseNodeCredentials } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { describe, setOutput } from './runtime/message/output';
import { operationOf, operationsOf } from './runtime/message/operation';
import { evaluateProperty, isPlainObject, jsonObjectText, msgText, nonEmptyString } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';
import { isDestinationKey, withStoredSecret } from './runtime/message/stored-secret';

const OPERATIONS = operationsOf(DATABASE_NODE.fields.operation);
type Operation = (typeof OPERATIONS)[number];
/** The status text after each operation but list (which counts). */
const DONE = { create: 'created', get: 'read', update: 'updated', delete: 'deleted' } as const;

/**
 * The node's connection fields (the password aside); blank ones are left out, so the server never reads "" as a value.
 */
function fieldParameters(config: DatabaseNodeConfig): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const put = (key: string, value: string) => {
    if (value.trim() !== '') out[key] = value.trim();
  };
  put('host', config.host);
  if (config.port !== undefined) out.port = config.port;
  put('user', config.user);
  put('database', config.database);
  return out;
}

export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-database', [
    'requesting',
    'databases',
    'created',
    'read',
    'updated',
    'deleted',
  ] as const);
  function MindsDBDatabaseNode(this: Node<DatabaseNodeCredentials>, saved: SavedConfig): void {
    const config = startNode(RED, this, DATABASE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const password = node.credentials?.password || undefined;
    // The node's own parameters (the stored password aside), fixed for its lifetime: parsed once, errors reported per
    // msg.
    let nodeParameters: Record<string, unknown> | Error;
    try {
      nodeParameters = {
        ...jsonObjectText(config.extraParams, 'the node\'s "other parameters"'),
        ...fieldParameters(config),
      };
    } catch (err) {
      nodeParameters = err as Error;
    }
    // The password must not reach a Catch node even if the server quotes it back.
    const passwordRedactor = new Redactor();
    passwordRedactor.setSecrets([password]);

    const specFrom = async (msg: Msg, operation: Operation): Promise<DatabaseSpec> => {
      if (operation === 'list') return { name: '' };
      const payload = isPlainObject(msg.payload) ? msg.payload : {};
      const ownName = nonEmptyString(await evaluateProperty(RED, node, config.dbName, msg));
      const payloadName = operation === 'create' || operation === 'update' ? nonEmptyString(payload.name) : undefined;
      const name = ownName ?? payloadName ?? msgText(msg, 'name');
      describe(msg, { name });
      if (!name)
        throw inputError('no database name: set it in the node, in msg.payload.name (create/update) or in msg.name');
      if (operation !== 'create' && operation !== 'update') return { name };
      if (nodeParameters instanceof Error) throw nodeParameters;
      const given = plainJson(payload.parameters, 'msg.payload.parameters');
      if (given !== undefined && !isPlainObject(given)) throw inputError('msg.payload.parameters must be an object');
      // An update that names no host of its own keeps the existing database's: a name from the msg picks that host.
      const nameFromMsg = ownName === undefined || config.dbName.type === 'msg' || config.dbName.type === 'jsonata';
      const nameSource =
        ownName !== undefined
          ? 'the Name property (from the msg)'
          : payloadName !== undefined
            ? 'msg.payload.name'
            : 'msg.name';
      const chosenByMsg =
        operation === 'update' && nameFromMsg && !Object.keys(nodeParameters).some(isDestinationKey)
          ? `${nameSource} (the existing database's host)`
          : undefined;
      // Node fields win; msg.payload.parameters fills the keys the node leaves out; the stored
      // password goes only with the node's own destination (./runtime/message/stored-secret.ts).
      const parameters = withStoredSecret({
        key: 'password',
        stored: password,
        what: 'the database password',
        fromNode: nodeParameters,
        fromMsg: (given as Record<string, unknown> | undefined) ?? {},
        msgPath: 'msg.payload.parameters',
        chosenByMsg,
      });
      const engine = nonEmptyString(config.engine) ?? nonEmptyString(payload.engine);
      if (operation === 'create' && !engine)
        throw inputError('no engine: set it in the node or in msg.payload.engine (e.g. "postgres")');
      return { name, engine, parameters };
    };

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      const operation = operationOf(config.operation, msg, OPERATIONS, 'database');
      describe(msg, { operation });
      // The name first: an error in what follows (msg.server, msg.timeout) still says which database.
      const spec = await specFrom(msg, operation);
      const api = new DatabasesApi(clientFor(RED, config, msg));
      const timeoutMs = timeoutFrom(msg);
      status.set(texts.busy('requesting'));
      let result: unknown;
      try {
        switch (operation) {
          case 'list':
            result = redactSecretFields(await api.list({ timeoutMs }));
            break;
          case 'get':
            result = redactSecretFields(await api.get(spec.name, { timeoutMs }));
            break;
          case 'create':
            result = await api.create(spec, config.checkConnection, { timeoutMs });
            break;
          case 'update':
            result = redactSecretFields(
              await api.update(spec, config.checkConnection, { timeoutMs, createIfMissing: config.updateCreates }),
            );
            break;
          case 'delete':
            result = await api.delete(spec.name, { timeoutMs });
            break;
        }
      } catch (err) {
        throw passwordRedactor.error(err);
      }
      setOutput(RED, msg, outputProperty, result);
      msg.mindsdb = { operation, name: operation === 'list' ? undefined : spec.name };
      send(msg);
      status.set(
        operation === 'list'
          ? texts.ok('databases', { count: Array.isArray(result) ? result.length : 0 })
          : texts.ok(DONE[operation], { name: spec.name }),
      );
    });
  }

  registerNodeType(RED, DATABASE_NODE, MindsDBDatabaseNode);
};
