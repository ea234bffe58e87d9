/**
 * One toast stack for the whole console. Calls made outside React (the request helper, uploads, blocked forms)
 * toast through the same message instance as the screens (antd's App context, themed and placed by the app), not
 * antd's static `message`, which renders a second stack of its own over the first. Until the app has mounted the
 * static one is all there is.
 */
import { message as staticMessage } from 'antd';
import type { MessageInstance } from 'antd/es/message/interface';

let current: MessageInstance = staticMessage;

/** The console's toasts. */
export function toasts(): MessageInstance {
  return current;
}

/** Made once by the app shell from `App.useApp().message`. */
export function useToastsFrom(instance: MessageInstance): void {
  current = instance;
}
