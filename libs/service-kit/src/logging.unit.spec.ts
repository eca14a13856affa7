import { logDestination, safeUrl } from './logging';

describe('log destination', () => {
  it('is pretty on a terminal and JSON (the default stdout) otherwise', () => {
    expect(logDestination({}, { isTTY: true })).toBeDefined();
    expect(logDestination({}, { isTTY: false })).toBeUndefined();
    expect(logDestination({}, {})).toBeUndefined();
  });

  it('follows LOG_FORMAT when it is set', () => {
    expect(logDestination({ LOG_FORMAT: 'json' }, { isTTY: true })).toBeUndefined();
    expect(logDestination({ LOG_FORMAT: 'pretty' }, { isTTY: false })).toBeDefined();
  });

  it('hides passwords in URLs', () => {
    expect(safeUrl('postgres://u:secret@h:5432/db')).toBe('postgres://u:***@h:5432/db');
  });
});
