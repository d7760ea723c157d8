export async function action(args) { return String(args.promptText).toLowerCase(); }
