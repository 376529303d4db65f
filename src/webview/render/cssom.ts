import { noChange, nothing } from 'lit';
import { Directive, directive, PartType, type ElementPart, type PartInfo } from 'lit/directive.js';

/**
 * Sets inline style properties through the CSSOM (`element.style`) on every render, the first one included.
 * Lit's own `styleMap` writes a `style="…"` attribute on the first render, which a CSP without 'unsafe-inline'
 * drops: every bar would draw at its stylesheet default. Used as an element binding: `<div ${cssom({ width })}>`.
 */
class CssomDirective extends Directive {
  private previous = new Set<string>();

  constructor(part: PartInfo) {
    super(part);
    if (part.type !== PartType.ELEMENT) throw new Error('cssom() is an element binding: <div ${cssom({...})}>');
  }

  render(_props: Record<string, string | undefined>): typeof nothing {
    return nothing;
  }

  override update(part: ElementPart, [props]: [Record<string, string | undefined>]): typeof noChange {
    const style = (part.element as HTMLElement).style;
    for (const name of this.previous) if (props[name] === undefined) style.removeProperty(toCss(name));
    this.previous = new Set();
    for (const [name, value] of Object.entries(props)) {
      if (value === undefined) continue;
      style.setProperty(toCss(name), value);
      this.previous.add(name);
    }
    return noChange;
  }
}

const toCss = (name: string): string => (name.startsWith('--') ? name : name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`));

export const cssom = directive(CssomDirective);
