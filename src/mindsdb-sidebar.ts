// First: on a Node.js below the package's floor, fail to load with an error that says so, before undici loads.
import './runtime/node/floor';
import type { NodeAPI } from './runtime/node/red';

/**
 * The MindsDB sidebar, a Node-RED editor plugin: its editor side is nodes/mindsdb-sidebar.html
 * (src/editor/sidebar/), its texts nodes/locales/<lang>/mindsdb-sidebar.json; what it asks the
 * runtime goes through the editor endpoints the server node registers
 * (src/runtime/editor/admin-explorer.ts). The runtime side only names the plugin.
 */
interface PluginAPI {
  plugins: { registerPlugin(id: string, definition: { type: string }): void };
}

export = function register(RED: NodeAPI): void {
  (RED as unknown as PluginAPI).plugins.registerPlugin('mindsdb-sidebar', { type: 'mindsdb-sidebar' });
};
