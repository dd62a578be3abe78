// Announcements for screen readers through the one polite live region. Messages said within a
// moment of each other are joined in the order they were said, so "a.txt uploaded." comes
// before "All 3 uploads finished." when both happen at once.

const DELAY_MS = 400;
let timer = 0;
let pending = [];

export function announce(message) {
  pending.push(message);
  clearTimeout(timer);
  timer = setTimeout(() => {
    document.getElementById('announcer').textContent = pending.join(' ');
    pending = [];
  }, DELAY_MS);
}
