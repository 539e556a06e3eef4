'use strict';
/** What the sidebar suite does in the editor page: drag a row, wire and deploy, inject, the code editor. */

const SHOWN = ['type', 'server', 'query', 'project', 'model', 'operation', 'itemName', 'database', 'table'];

/** Drags a sidebar row onto the canvas at (x, y), a key held if given; the new node's id and what it was given. */
async function dropRow(page, selector, x, y, key) {
  const before = await page.evaluate(() => {
    const ids = [];
    RED.nodes.eachNode((n) => {
      ids.push(n.id);
    });
    return ids;
  });
  if (key) await page.keyboard.down(key);
  try {
    await page.dragAndDrop(selector, '#red-ui-workspace-chart', { targetPosition: { x, y } });
  } finally {
    if (key) await page.keyboard.up(key);
  }
  return page.evaluate(
    ([known, keys]) => {
      let made;
      RED.nodes.eachNode((n) => {
        if (!known.includes(n.id)) made = n;
      });
      if (!made) throw new Error('no node was made by the drop');
      const props = {};
      for (const k of keys) if (made[k] !== undefined && made[k] !== '') props[k] = made[k];
      return { id: made.id, props, valid: made.valid };
    },
    [before, SHOWN],
  );
}

/**
 * Wires an inject node before and a debug node after each node (`payload` and its type for the
 * inject), deploys, and listens to the debug messages.
 */
async function wireAndDeploy(page, specs) {
  await page.evaluate((list) => {
    window.mindsdbDebug = window.mindsdbDebug || [];
    if (!window.mindsdbDebugListening) {
      window.mindsdbDebugListening = true;
      RED.comms.subscribe('debug', (_topic, msg) => {
        window.mindsdbDebug.push(msg);
      });
    }
    for (const { id, payload, payloadType } of list) {
      const node = RED.nodes.node(id);
      RED.nodes.import([
        {
          id: `inj_${id}`,
          type: 'inject',
          z: node.z,
          name: '',
          props: [{ p: 'payload' }],
          repeat: '',
          crontab: '',
          once: false,
          onceDelay: 0.1,
          topic: '',
          payload,
          payloadType,
          x: node.x - 200,
          y: node.y,
          wires: [[]],
        },
        {
          id: `dbg_${id}`,
          type: 'debug',
          z: node.z,
          name: '',
          active: true,
          tosidebar: true,
          console: false,
          tostatus: false,
          complete: 'payload',
          targetType: 'msg',
          x: node.x + 260,
          y: node.y,
          wires: [],
        },
      ]);
      RED.nodes.addLink({ source: RED.nodes.node(`inj_${id}`), sourcePort: 0, target: node });
      RED.nodes.addLink({ source: node, sourcePort: 0, target: RED.nodes.node(`dbg_${id}`) });
    }
    RED.nodes.dirty(true);
    RED.view.redraw(true);
  }, specs);
  await page.click('#red-ui-header-button-deploy');
  await page.waitForFunction(() => !RED.nodes.dirty(), null, { timeout: 30000 });
}

/**
 * Presses the inject node before `id` and resolves with the payload its debug node shows (an error of the node fails).
 */
async function inject(page, red, id) {
  const res = await fetch(`${red.url}inject/inj_${id}`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`inject inj_${id}: HTTP ${res.status}`);
  const msg = await page
    .waitForFunction(
      (nodeId) => (window.mindsdbDebug || []).find((m) => m.id === `dbg_${nodeId}` || (m.id === nodeId && m.level)),
      id,
      { timeout: 120000 },
    )
    .then((h) => h.jsonValue());
  if (msg.id === id) throw new Error(`the node failed: ${msg.msg}`);
  return JSON.parse(msg.msg);
}

/** The Monaco editor of the open dialog's SQL row. */
const EDITOR = () =>
  window.monaco.editor.getEditors().find((e) => e.getContainerDomNode().closest('#node-input-query-editor'));

async function editorValue(page) {
  return page.evaluate(`(${EDITOR})().getValue()`);
}

/** Sets the dialog's SQL and puts the cursor at `column` of its first line. */
async function setEditorValue(page, value, column) {
  await page.evaluate(
    `(() => { const ed = (${EDITOR})(); ed.setValue(${JSON.stringify(value)}); ed.focus(); ed.setPosition({ lineNumber: 1, column: ${column} }); })()`,
  );
}

module.exports = { dropRow, wireAndDeploy, inject, editorValue, setEditorValue };
