/** The session this tab keeps in sessionStorage under `key`. */
export function tabSession(key: string) {
  return {
    get: () => sessionStorage.getItem(key),
    set: (value: string) => sessionStorage.setItem(key, value),
    clear: () => sessionStorage.removeItem(key),
  };
}
