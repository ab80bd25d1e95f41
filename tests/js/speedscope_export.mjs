// Has speedscope's own app (npm package `speedscope`, in Debian's chromium
// through playwright-core) import each input and export it, as a person
// does with its Import and Export buttons: the files it saves are what
// tests/cli/speedscope_exported.sh reads back with profkit.
//
// Usage: node speedscope_export.mjs INDEX_HTML IN1 OUT1 [IN2 OUT2 ...]
// Environment: PROFKIT_TOOLS (playwright-core, through lib.mjs).
const [index, ...pairs] = process.argv.slice(2);
if (!index || pairs.length === 0 || pairs.length % 2) {
  console.error("usage: speedscope_export.mjs INDEX_HTML IN OUT [IN OUT ...]");
  process.exit(2);
}
const { launch } = await import("./lib.mjs");
const browser = await launch();
let failed = 0;
for (let i = 0; i < pairs.length; i += 2) {
  const [input, output] = [pairs[i], pairs[i + 1]];
  const ctx = await browser.newContext({ acceptDownloads: true });
  const page = await ctx.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await page.goto("file://" + index);
    await page.setInputFiles("input#file", input);         // the landing page's "Browse" input
    const exportTab = page.getByText("Export");
    await exportTab.waitFor({ timeout: 30000 });            // shown once the profile is imported
    const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30000 }), exportTab.click()]);
    await download.saveAs(output);
    if (errors.length) throw new Error(errors.join(" | "));
    console.log(`exported ${input} -> ${output}`);
  } catch (e) {
    failed++;
    console.log(`FAIL: speedscope did not export ${input}: ${e.message.split("\n")[0]}`);
  }
  await ctx.close();
}
await browser.close();
process.exit(failed ? 1 : 0);
