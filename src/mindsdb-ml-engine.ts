// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import { checkHandler, inputError, plainJson, isSecretKey, MLEnginesApi, Redactor, type MLEngineSpec } from './client';
import { ML_ENGINE_NODE, type MLEngineNodeCredentials } from './schema';
import { startNode, type SavedConfig } from './runtime/node/config';
import { handleInput, timeoutFrom } from './runtime/message/input';
import { operationOf, operationsOf } from './runtime/message/operation';
import { describe, setOutput } from './runtime/message/output';
import { evaluateProperty, isPlainObject, jsonObjectText, msgText, nonEmptyString } from './runtime/message/properties';
import { registerNodeType, type Msg, type Node, type NodeAPI, type Send } from './runtime/node/red';
import { clientFor } from './runtime/node/server';
import { ThrottledStatus } from './runtime/status/status';
import { StatusTexts } from './runtime/status/status-texts';
import { withStoredSecret } from './runtime/message/stored-secret';

const OPERATIONS = operationsOf(ML_ENGINE_NODE.fields.operation);
type Operation = (typeof OPERATIONS)[number];

/**
 * The ML-engine node: list the server's ML handlers, create an engine from one (API key as a credential), list and
 * delete engines.
 */
export = function register(RED: NodeAPI): void {
  const texts = new StatusTexts('mindsdb-ml-engine', [
    'requesting',
    'engines',
    'handlers',
    'created',
    'deleted',
  ] as const);
  function MindsDBMLEngineNode(this: Node<MLEngineNodeCredentials>, saved: SavedConfig): void {
    const config = startNode(RED, this, ML_ENGINE_NODE, saved);
    const node = this;
    const status = new ThrottledStatus(node);
    const { outputProperty } = config;
    const apiKey = node.credentials?.apiKey || undefined;
    // The node's own settings, fixed for its lifetime: parsed once, a mistake reported per msg.
    let nodeSettings: Record<string, unknown> | Error;
    try {
      nodeSettings = jsonObjectText(config.settings, "the node's settings");
    } catch (err) {
      nodeSettings = err as Error;
    }

    /** The engine to create: node fields win, msg.payload {handler, settings} fills what they leave blank. */
    const specFrom = (msg: Msg, name: string): { spec: MLEngineSpec; secrets: string[] } => {
      if (nodeSettings instanceof Error) throw nodeSettings;
      const payload = isPlainObject(msg.payload) ? msg.payload : {};
      const msgSettings = plainJson(payload.settings, 'msg.payload.settings');
      if (msgSettings !== undefined && !isPlainObject(msgSettings))
        throw inputError("msg.payload.settings must be an object of the engine's USING settings");
      const ownHandler = nonEmptyString(config.handler);
      const msgHandler = ownHandler ? undefined : payload.handler;
      if (msgHandler !== undefined && typeof msgHandler !== 'string')
        throw inputError('msg.payload.handler must be a string (e.g. "openai")');
      const given = ownHandler ?? nonEmptyString(msgHandler);
      if (!given)
        throw inputError(
          'no ML handler: set it in the node or in msg.payload.handler (e.g. "openai"); the "handlers" operation ' +
            'lists them',
        );
      const handler = checkHandler(given);
      // The stored key goes under the node's key name, or the one MindsDB's handlers read (`<handler>_api_key`),
      // and only with the node's own handler and destinations (./runtime/message/stored-secret.ts).
      const key = nonEmptyString(config.apiKeyParam)?.trim() ?? `${handler.toLowerCase()}_api_key`;
      const settings = withStoredSecret({
        key,
        stored: apiKey,
        what: 'the ML engine API key',
        fromNode: nodeSettings,
        fromMsg: (msgSettings as Record<string, unknown> | undefined) ?? {},
        msgPath: 'msg.payload.settings',
        chosenByMsg: ownHandler ? undefined : 'msg.payload.handler',
      });
      // Whatever secret goes with the settings (stored or the msg's own) is masked in any error text.
      const secrets = Object.entries(settings)
        .filter(([k, v]) => isSecretKey(k) && typeof v === 'string')
        .map(([, v]) => v as string);
      return { spec: { name, handler, settings }, secrets };
    };

    handleInput(node, status, texts, async (msg: Msg, send: Send) => {
      describe(msg, { resource: 'ml_engine' });
      const operation = operationOf<Operation>(config.operation, msg, OPERATIONS, 'ML engine');
      describe(msg, { operation });
      let name: string | undefined;
      if (operation === 'create' || operation === 'delete') {
        const payloadName =
          operation === 'create' && isPlainObject(msg.payload) ? nonEmptyString(msg.payload.name) : undefined;
        name =
          nonEmptyString(await evaluateProperty(RED, node, config.engineName, msg)) ??
          payloadName ??
          msgText(msg, 'name');
        describe(msg, { name });
        if (!name)
          throw inputError(
            `no ML engine name: set it in the node${operation === 'create' ? ', in msg.payload.name' : ''} or in ` +
              `msg.name`,
          );
      }
      // After the name: an error in msg.server or msg.timeout still says which engine.
      const api = new MLEnginesApi(clientFor(RED, config, msg));
      const timeoutMs = timeoutFrom(msg);
      const create = operation === 'create' ? specFrom(msg, name as string) : undefined;
      const redactor = new Redactor();
      redactor.setSecrets([apiKey, ...(create?.secrets ?? [])]);
      status.set(texts.busy('requesting'));
      let result: unknown;
      try {
        switch (operation) {
          case 'list':
            result = await api.list({ timeoutMs });
            break;
          case 'handlers':
            result = await api.handlers({ timeoutMs });
            break;
          case 'create':
            result = await api.create((create as { spec: MLEngineSpec }).spec, { timeoutMs });
            break;
          case 'delete':
            result = await api.delete(name as string, { timeoutMs });
            break;
        }
      } catch (err) {
        throw redactor.error(err);
      }
      setOutput(RED, msg, outputProperty, result);
      msg.mindsdb = { resource: 'ml_engine', operation, name };
      send(msg);
      const count = Array.isArray(result) ? result.length : 0;
      status.set(
        operation === 'list'
          ? texts.ok('engines', { count })
          : operation === 'handlers'
            ? texts.ok('handlers', { count })
            : texts.ok(operation === 'create' ? 'created' : 'deleted', { name: name as string }),
      );
    });
  }

  registerNodeType(RED, ML_ENGINE_NODE, MindsDBMLEngineNode);
};
