import { describe, expect, it } from 'vitest';
import { runEditorSync } from '../../src/backends/editor.js';

describe('runEditorSync', () => {
  it("gives the editor's exit code", () => {
    expect(runEditorSync(['sh', '-c', 'exit 3'])).toEqual({ exitCode: 3 });
    expect(runEditorSync(['true'])).toEqual({ exitCode: 0 });
  });

  it('says why when the editor cannot be started', () => {
    const result = runEditorSync(['/nonexistent/macs-editor']);
    expect(result.exitCode).toBeNull();
    expect(result.error).toMatch(/ENOENT|not found|nonexistent/i);
  });
});
