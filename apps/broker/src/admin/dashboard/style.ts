/**
 * The dashboard stylesheet: plain CSS, light and dark.
 * Kept as a string in a module so that the bundled app (tsup, dist/main.js) serves it with no file
 * to find at run time. Written without backticks or `${`, so it can sit in a raw template literal.
 * @module
 */

/** The dashboard stylesheet. */
export const DASHBOARD_CSS = String.raw`:root { color-scheme: light dark; --line: #8884; --accent: #2a7ae2; font: 14px/1.4 system-ui, sans-serif; }
body { margin: 0 auto; max-width: 1200px; padding: 0 16px 32px; }
header { display: flex; align-items: baseline; gap: 16px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 20px; margin: 12px 0; }
header #sign-out { margin-left: auto; }
h2 { font-size: 16px; margin: 20px 0 8px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 8px; margin-top: 16px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; display: flex; flex-direction: column; }
.card .label { font-size: 12px; opacity: .7; }
.card .value { font-size: 22px; font-variant-numeric: tabular-nums; }
.card ul { margin: 4px 0 0; padding-left: 16px; font-size: 12px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
td:first-child { white-space: normal; word-break: break-all; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 24px; }
@media (max-width: 800px) { .columns { grid-template-columns: 1fr; } }
.tree { list-style: none; padding-left: 16px; margin: 0; }
#retained-tree > .tree { padding-left: 0; }
.tree .level { font-weight: 600; }
.payload { font-family: ui-monospace, monospace; margin-left: 8px; word-break: break-all; }
.meta, .time, .hint { opacity: .65; font-size: 12px; margin-left: 8px; }
.time { margin-left: 0; }
#tester-messages { list-style: none; padding: 0; max-height: 360px; overflow: auto; }
#tester-messages li { border-bottom: 1px solid var(--line); padding: 2px 0; }
#tester-messages .topic { margin-left: 8px; font-weight: 600; }
#error { color: #d33; min-height: 1em; }
button { cursor: pointer; }
button.kick { color: #d33; }
input { padding: 3px 6px; }
`;
