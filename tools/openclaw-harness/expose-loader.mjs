// Node module-customization hook: appends `export { name as __trimscope_name }` to the real OpenClaw dist
// chunks that define the internal functions the harness drives. Nothing in the dist is changed or
// re-implemented; rolldown merely did not export these names from their chunk.
let wanted = [];

export async function initialize(data) {
  wanted = data.wanted;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (!url.includes("/dist/") || result.format !== "module" || result.source == null) return result;
  const source = typeof result.source === "string" ? result.source : Buffer.from(result.source).toString("utf8");
  const names = wanted.filter((name) => new RegExp(`^(?:(?:async )?function ${name}\\(|const ${name} = )`, "m").test(source));
  if (names.length === 0) return result;
  const extra = names.map((name) => `${name} as __trimscope_${name}`).join(", ");
  return { ...result, source: `${source}\nexport { ${extra} };\n` };
}
