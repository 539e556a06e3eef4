'use strict';
/**
 * Node-RED 5's two sidebars and its theme, as the browser suites drive them.
 *  - Where a tab sits is the runtime user setting `editor.sidebar.state` (format 4), in the user
 *    directory's .config.users.json, so it follows the Node-RED user, not the browser. A user moves
 *    a tab by dragging its section's header onto one of the drop targets that then appear. Tab
 *    buttons do not drag. Node-RED saves the move 300 ms later (POST settings/user).
 *  - The dark theme is the browser's localStorage `view-dark-theme` ('light' | 'dark' | 'auto'),
 *    read at start: Settings → View → Appearance.
 * Node-RED 3.1 and 4.1 have one sidebar and no built-in dark theme.
 */

/** Node-RED 5's sidebar layout with the MindsDB tab in the left (secondary) sidebar, `width` px wide. */
function mindsdbOnTheLeft(width = 210) {
  return {
    v: 4,
    tabs: [],
    primary: {
      width: 300,
      top: { tabs: ['info', 'help', 'config', 'context'], active: 'info' },
      bottom: { tabs: ['debug'], active: 'debug' },
    },
    secondary: {
      width,
      top: { tabs: ['explorer', 'mindsdb'], active: 'mindsdb', hidden: false },
      bottom: { tabs: ['palette'], active: 'palette' },
    },
  };
}

/** Which sidebar shows the MindsDB tab: 'red-ui-sidebar' (right, primary) or 'red-ui-sidebar-left' (secondary). */
function sidebarOf(page) {
  return page.evaluate(() => $('#mindsdb-sidebar-tree').closest('#red-ui-sidebar, #red-ui-sidebar-left').attr('id'));
}

/**
 * Drags the header of the section that shows the MindsDB tab onto the drop target of `sidebar`
 * ('primary' | 'secondary') and `section` ('top' | 'bottom'), with the mouse as a user does (a
 * jQuery UI drag, not HTML drag and drop), and waits until Node-RED has saved the new layout.
 */
async function moveSidebarTab(page, sidebar, section = 'top') {
  await page.evaluate(() => RED.sidebar.show('mindsdb'));
  const banner = page
    .locator('.red-ui-sidebar-section', { has: page.locator('#mindsdb-sidebar-tree') })
    .locator('.red-ui-sidebar-banner');
  const from = await banner.boundingBox();
  await page.mouse.move(from.x + 40, from.y + from.height / 2);
  await page.mouse.down();
  // The first moves start the drag; the drop targets appear then, in the order primary top,
  // primary bottom, secondary top, secondary bottom.
  await page.mouse.move(from.x + 30, from.y + from.height / 2 + 10, { steps: 5 });
  const index = (sidebar === 'secondary' ? 2 : 0) + (section === 'bottom' ? 1 : 0);
  const target = await page.locator('.red-ui-sidebar-drop-target').nth(index).boundingBox();
  const saved = page.waitForResponse((r) => r.url().endsWith('/settings/user') && r.request().method() === 'POST');
  await page.mouse.move(target.x + target.width / 2, target.y + target.height / 2, { steps: 15 });
  await page.mouse.up();
  await saved;
}

/**
 * What sticks out of the MindsDB tab's column: its head's fields and buttons, the tree box, each
 * row and note box, the hint, the knowledge-base preview's parts (a row's own text is cut with an
 * ellipsis inside the row; the preview's table scrolls in its own box), whether the tree
 * scrolls sideways, and what one part of the tab draws over the next. Each as "what (how many px)".
 */
function overflowing(page) {
  return page.evaluate(() => {
    const column = $('.mindsdb-sidebar')[0].getBoundingClientRect();
    const out = [];
    const boxes =
      '.mindsdb-sidebar-head *, .mindsdb-tree, .mindsdb-tree > *, .mindsdb-sidebar-hint, .mindsdb-kb-preview > *';
    for (const el of $(boxes).toArray()) {
      const box = el.getBoundingClientRect();
      if (box.width === 0) continue;
      const over = Math.max(box.right - column.right, column.left - box.left);
      if (over > 0.5) out.push(`${el.id || el.className || el.tagName} (${Math.round(over)} px)`);
    }
    const tree = $('#mindsdb-sidebar-tree')[0];
    if (tree.scrollWidth > tree.clientWidth)
      out.push(`the tree scrolls sideways (${tree.scrollWidth - tree.clientWidth} px)`);
    // Each part of the tab (head, tree, preview, hint) holds what it draws, or scrolls it: nothing
    // is drawn over the next part.
    const sidebar = $('.mindsdb-sidebar')[0];
    for (const el of sidebar.querySelectorAll('*')) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || box.height === 0) continue;
      let part = el;
      let clipped = false;
      while (part.parentElement !== sidebar) {
        part = part.parentElement;
        if (getComputedStyle(part).overflowY !== 'visible') clipped = true;
      }
      if (clipped || part === el) continue;
      const holder = part.getBoundingClientRect();
      const over = Math.max(box.bottom - holder.bottom, holder.top - box.top);
      if (over > 0.5)
        out.push(`${el.id || el.className || el.tagName} out of ${part.className} (${Math.round(over)} px)`);
    }
    return out;
  });
}

/**
 * A new page of `browser` (its own context: its own localStorage) with the editor in `theme`
 * ('light' | 'dark'), at `url`, once the flows are loaded and the MindsDB tab is there.
 */
async function editorPage(browser, url, theme, problems) {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  await context.addInitScript((value) => localStorage.setItem('view-dark-theme', value), theme);
  const page = await context.newPage();
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  await page.goto(url);
  await waitForEditor(page);
  return page;
}

/** Waits until the editor has our node types, the flows (server srv) and the MindsDB tab. */
function waitForEditor(page) {
  return page.waitForFunction(
    () =>
      window.RED &&
      RED.nodes?.getType('mindsdb-sql') &&
      RED.nodes.node('srv') &&
      $('#mindsdb-sidebar-tree').length > 0 &&
      $('#red-ui-palette-container .red-ui-palette-node').length > 0,
    null,
    { timeout: 60000 },
  );
}

module.exports = { mindsdbOnTheLeft, sidebarOf, moveSidebarTab, overflowing, editorPage, waitForEditor };
