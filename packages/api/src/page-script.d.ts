/** A page's script bundled for the browser (scripts/page-script.ts): its text, to inline and hash. */
declare module "*?page-script" {
  const script: string;
  export default script;
}
