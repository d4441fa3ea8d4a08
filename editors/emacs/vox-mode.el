;;; vox-mode.el --- VoxScript with eglot (Emacs 28+, eglot 1.9+)  -*- lexical-binding: t -*-

;; Load it (M-x load-file) or copy it into your init file; `vox' must be on `exec-path'.
;; docs/editors.md ("Other editors") shows this file; editors/emacs/test/e2e.el checks that it
;; is the same and runs it against `vox lsp'.

(require 'eglot)

(defvar vox-mode-syntax-table
  (let ((st (make-syntax-table)))
    (modify-syntax-entry ?/ ". 12" st)   ; // starts a comment
    (modify-syntax-entry ?\n ">" st)
    (modify-syntax-entry ?_ "_" st)
    st))

(define-derived-mode vox-mode prog-mode "Vox"
  "Major mode for VoxScript (.vox) files; the language server does the rest."
  (setq-local comment-start "// ")
  (setq-local comment-start-skip "//+\\s-*"))

(add-to-list 'auto-mode-alist '("\\.vox\\'" . vox-mode))
(add-to-list 'eglot-server-programs '(vox-mode "vox" "lsp"))
(add-hook 'vox-mode-hook #'eglot-ensure)

;; eglot 1.9 has no code lenses: the lenses' commands as M-x commands.
(defun vox--command (command)
  (eglot-execute-command (eglot--current-server-or-lose) command
                         (vector (eglot--TextDocumentIdentifier))))

(defun vox-run ()
  "Run this script (`vox.run'); the output is in M-x eglot-events-buffer."
  (interactive)
  (let ((run (vox--command 'vox.run)))
    (message "[vox] run %s started: its output is in M-x eglot-events-buffer"
             (plist-get run :runId))))

(defun vox-show-caps ()
  "Show the capabilities this script needs (`vox.showCaps')."
  (interactive)
  (vox--command 'vox.showCaps))

;; Run output also comes as window/logMessage: keep eglot from warning about vox/*.
(cl-defmethod eglot-handle-notification (_server (_method (eql vox/runOutput)) &rest _))
(cl-defmethod eglot-handle-notification (_server (_method (eql vox/runExit)) &rest _))

(provide 'vox-mode)
;;; vox-mode.el ends here
