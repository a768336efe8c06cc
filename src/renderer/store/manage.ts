// The slice for managing servers and secrets from the window: the open dialog (add, edit,
// remove), saving a form (the server first, then the values typed into secret fields), remove
// with an Undo in the toast, and the secrets list. Values typed into secret fields go to the
// store once and are never kept here or read back.
import type { StoreApi } from 'zustand/vanilla'
import type { SecretInfo, SecretStoreInfo } from '../../shared/api'
import type { ServerInput } from '../../shared/server-entry'
import type { AppState } from './store'
import { messageOf } from './slice-helpers'

export type Dialog = { kind: 'add' } | { kind: 'edit'; server: string } | { kind: 'remove'; server: string } | null

export interface ToastAction {
  label: string
  run(): void
}

/** A value typed into a secret field: stored under `name`, referenced as ${secret:name}. */
export interface SecretValue {
  name: string
  value: string
}

export interface ManageSlice {
  dialog: Dialog
  toastAction: ToastAction | null
  secretList: { secrets: SecretInfo[]; store: SecretStoreInfo } | null

  openDialog(dialog: Dialog): void
  /** Saves the server (add, or edit of `editing`), then the secret values; resolves to an error message, or null when all went well. */
  saveServer(input: ServerInput, secrets: SecretValue[], editing: string | null): Promise<string | null>
  removeServer(server: string): Promise<void>
  loadSecrets(): Promise<void>
  setSecret(name: string, value: string): Promise<string | null>
  deleteSecret(name: string): Promise<void>
}

type Set = StoreApi<AppState>['setState']
type Get = StoreApi<AppState>['getState']

export function createManageSlice(set: Set, get: Get): ManageSlice {
  const api = () => get().api
  return {
    dialog: null,
    toastAction: null,
    secretList: null,

    openDialog(dialog) {
      set({ dialog })
    },

    async saveServer(input, secrets, editing) {
      const mark = get().changeMark()
      try {
        const result = editing ? await api().editServer(editing, input) : await api().addServer(input)
        for (const s of secrets) await api().setSecret(s.name, s.value)
        set({ toast: result.message, toastAction: null })
      } catch (err) {
        // the entry may be saved and a secret not: what the core has comes with its events
        return messageOf(err)
      }
      await get().afterChange(mark)
      return null
    },

    async removeServer(server) {
      const mark = get().changeMark()
      try {
        const result = await api().removeServer(server)
        set({
          dialog: null,
          toast: result.message,
          toastAction: {
            label: 'Undo',
            run: () => {
              set({ toast: null, toastAction: null })
              void api()
                .restoreServer(server)
                .then((r) => set({ toast: r.message }))
                .catch((err: unknown) => get().reportError(err))
            },
          },
        })
      } catch (err) {
        set({ dialog: null })
        get().reportError(err)
        return
      }
      await get().afterChange(mark)
    },

    async loadSecrets() {
      try {
        set({ secretList: await api().secrets() })
      } catch (err) {
        get().reportError(err)
      }
    },

    async setSecret(name, value) {
      const mark = get().changeMark()
      try {
        const r = await api().setSecret(name, value)
        set({ toast: r.message, toastAction: null })
      } catch (err) {
        return messageOf(err)
      }
      await get().afterChange(mark)
      return null
    },

    async deleteSecret(name) {
      const mark = get().changeMark()
      try {
        const r = await api().deleteSecret(name)
        set({ toast: r.message, toastAction: null })
      } catch (err) {
        get().reportError(err)
        await get().loadSecrets()
        return
      }
      await get().afterChange(mark)
    },
  }
}
