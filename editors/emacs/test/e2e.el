;;; e2e.el --- VoxScript in Emacs with eglot, end to end, headless  -*- lexical-binding: t -*-

;; Run by run.sh (emacs --batch -l e2e.el) against the real `vox lsp': loads editors/emacs/vox-mode.el
;; (the configuration docs/editors.md shows), opens the fixture script and then does what a user does:
;; reads the diagnostics flymake shows, picks a code action by its title and saves the file it wrote,
;; runs the script and shows its capabilities. Prints one line per step and "N passed, N failed";
;; exits 1 when a step failed.
;;
;; Environment (run.sh sets it): VOX_E2E_WS, a copy of editors/test/fixtures/workspace;
;; VOX_E2E_EDITORS, the editors/ directory; `vox' first on PATH.

(require 'cl-lib)
(require 'subr-x)

(defvar e2e-passed 0)
(defvar e2e-failed 0)
(defvar e2e-ws (file-name-as-directory (getenv "VOX_E2E_WS")))
(defvar e2e-editors (file-name-as-directory (getenv "VOX_E2E_EDITORS")))
(defvar e2e-script (expand-file-name "greet.vox" e2e-ws))
(defvar e2e-server nil)

(defun e2e-say (fmt &rest args)
  (princ (concat (apply #'format fmt args) "\n")))

(defmacro e2e-step (name &rest body)
  "Run BODY as the step NAME: it passes unless it signals an error."
  (declare (indent 1))
  `(condition-case err
       (progn ,@body
              (cl-incf e2e-passed)
              (e2e-say "ok   %s" ,name))
     (error (cl-incf e2e-failed)
            (e2e-say "FAIL %s: %s" ,name (error-message-string err)))))

(defun e2e-check (ok fmt &rest args)
  (unless ok (error "%s" (apply #'format fmt args))))

(defvar e2e-unstuck 0)

(defun e2e-unstick ()
  "Parse what waits in the server's process buffer, as its next read would.
Emacs 28's jsonrpc returns from a request by throwing out of its process filter: messages that
came in the same read, behind the response, wait in the process buffer until the server sends
something else (a user's next keystroke usually makes it do so; Emacs 29's jsonrpc holds none)."
  (when-let ((proc (and e2e-server (jsonrpc--process e2e-server))))
    (when (and (process-live-p proc) (buffer-live-p (process-buffer proc))
               (> (buffer-size (process-buffer proc)) 0))
      (cl-incf e2e-unstuck)
      (jsonrpc--process-filter proc ""))))

(defun e2e-wait (what pred &optional seconds)
  "Wait until PRED returns non-nil and return it, as an idle editor would: reading the server,
running timers and, after each turn, `post-command-hook' (as if the user had typed)."
  (let ((deadline (+ (float-time) (or seconds 60)))
        value)
    (while (and (not (setq value (funcall pred)))
                (< (float-time) deadline))
      (accept-process-output nil 0.02)
      ;; In batch mode only reading input dispatches file notifications (eglot's file watchers).
      (read-event nil nil 0.03)
      (e2e-unstick)
      (run-hooks 'post-command-hook))
    (or value (error "no %s after %ss" what (or seconds 60)))))

(defun e2e-file-string (file)
  (with-temp-buffer
    (insert-file-contents file)
    (buffer-string)))

(defun e2e-client-notified-p (method text)
  "Whether eglot sent the notification METHOD with TEXT in it (per its events buffer)."
  (with-current-buffer (jsonrpc-events-buffer e2e-server)
    (save-excursion
      (goto-char (point-min))
      (let (found)
        (while (and (not found) (re-search-forward "^\\[client-notification\\][^\n]*:\n" nil t))
          (let ((msg (ignore-errors (read (current-buffer)))))
            (when (and (equal (plist-get msg :method) method)
                       (string-match-p (regexp-quote text) (format "%S" msg)))
              (setq found t))))
        found))))

(defun e2e-log-messages ()
  "The messages of every window/logMessage in eglot's events buffer, in order."
  (with-current-buffer (jsonrpc-events-buffer e2e-server)
    (save-excursion
      (goto-char (point-min))
      (let (out)
        ;; Each event is a "[server-notification] DATE:" line followed by the message as a plist.
        (while (re-search-forward "^\\[server-notification\\][^\n]*:\n" nil t)
          (let ((msg (ignore-errors (read (current-buffer)))))
            (when (equal (plist-get msg :method) "window/logMessage")
              (push (plist-get (plist-get msg :params) :message) out))))
        (nreverse out)))))

;; ---------------------------------------------------------------------------------------------

(e2e-say "emacs e2e: GNU Emacs %s, eglot %s, server %s"
         emacs-version
         (let ((lib (progn (require 'eglot) (locate-library "eglot"))))
           (if (string-match "eglot-\\([0-9.]+\\)/" lib) (match-string 1 lib) lib))
         (executable-find "vox"))

(let ((config (expand-file-name "emacs/vox-mode.el" e2e-editors)))
  (e2e-step "configuration: editors/emacs/vox-mode.el is the one docs/editors.md shows"
    (let* ((docs (e2e-file-string (expand-file-name "../docs/editors.md" e2e-editors)))
           (start (or (string-match "^### Emacs" docs)
                      (error "docs/editors.md has no \"### Emacs\" section")))
           (open (or (string-match "^```emacs-lisp\n" docs start)
                     (error "the Emacs section has no ```emacs-lisp block")))
           (body-start (match-end 0))
           (close (or (string-match "^```$" docs body-start)
                      (error "the ```emacs-lisp block does not end")))
           (shown (substring docs body-start close)))
      (ignore open)
      (e2e-check (equal shown (e2e-file-string config))
                 "the block in docs/editors.md differs from %s" config)))
  (e2e-step "configuration: vox-mode.el loads"
    (load config nil t)
    (e2e-check (eq (cdr (assoc "\\.vox\\'" auto-mode-alist)) 'vox-mode) ".vox is not vox-mode")))

(e2e-step "open greet.vox: vox-mode, eglot connects to vox lsp"
  (find-file e2e-script)
  (e2e-check (eq major-mode 'vox-mode) "major mode is %s" major-mode)
  (setq e2e-server (e2e-wait "eglot connection" (lambda () (eglot-current-server))))
  (e2e-wait "eglot-managed buffer" (lambda () (bound-and-true-p eglot--managed-mode)))
  (e2e-say "     server: %s" (plist-get (eglot--server-info e2e-server) :name)))

(e2e-step "diagnostics: D003 in stamp, reached from main (flymake)"
  (let* ((diag (e2e-wait "D003 diagnostic in flymake"
                         (lambda ()
                           (cl-find-if (lambda (d) (string-match-p "\\[D003\\]" (flymake-diagnostic-text d)))
                                       (flymake-diagnostics)))))
         (lsp (alist-get 'eglot-lsp-diag (flymake-diagnostic-data diag)))
         (line (line-number-at-pos (flymake-diagnostic-beg diag)))
         (related (append (plist-get lsp :relatedInformation) nil))
         (text (flymake-diagnostic-text diag)))
    (e2e-say "     %s:%d: %s" (file-name-nondirectory e2e-script) line (car (split-string text "\n")))
    (e2e-check (= line 3) "D003 is on line %d, not on line 3 (time.now_ms())" line)
    (e2e-check (string-prefix-p (buffer-substring (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag))
                                "time.now_ms()")
               "the D003 range is %S" (buffer-substring (flymake-diagnostic-beg diag) (flymake-diagnostic-end diag)))
    (e2e-check (eq (flymake-diagnostic-type diag) 'eglot-warning) "D003 is a %s" (flymake-diagnostic-type diag))
    ;; The chain: from main, where stamp() is called (line 11).
    (e2e-check related "no chain (relatedInformation) on D003: %S" lsp)
    (let ((step (car related)))
      (e2e-say "     chain: %s at line %d" (plist-get step :message)
               (1+ (plist-get (plist-get (plist-get (plist-get step :location) :range) :start) :line)))
      (e2e-check (equal (plist-get step :message) "reached from `main`") "chain step %S" step)
      (e2e-check (= (plist-get (plist-get (plist-get (plist-get step :location) :range) :start) :line) 10)
                 "the chain does not point at the call of stamp() in main: %S" step))))

(let ((toml (expand-file-name "Vox.toml" e2e-ws))
      (title-re "\\`Run with inferred capabilities: add to Vox\\.toml\\'"))
  (e2e-step "code action \"Run with inferred capabilities: add to Vox.toml\" writes Vox.toml"
    (e2e-check (not (file-exists-p toml)) "Vox.toml exists before the action")
    (with-current-buffer (find-buffer-visiting e2e-script)
      (goto-char (point-min))
      (search-forward "fn main")
      (let* ((offered nil)
             (confirmed nil)
             ;; What the user picks in the minibuffer, by title; a key press, not a mouse click.
             (completing-read-function
              (lambda (_prompt collection &rest _)
                (setq offered (mapcar #'car collection))
                (or (cl-find-if (lambda (title) (string-match-p title-re title)) offered)
                    (error "no action titled \"Run with inferred capabilities: add to Vox.toml\" among %S"
                           offered))))
             (last-nonmenu-event ?\r))
        (cl-letf (((symbol-function 'y-or-n-p) (lambda (prompt) (setq confirmed prompt) t)))
          (eglot-code-actions (point) (point) nil t))
        (e2e-say "     offered: %s" (string-join offered " | "))
        (e2e-check confirmed "eglot applied an edit to a file it does not visit without asking")))
    ;; eglot edits a buffer visiting Vox.toml; the user saves it (C-x s).
    (let ((buf (or (find-buffer-visiting toml) (error "no buffer visits Vox.toml after the action"))))
      (with-current-buffer buf (save-buffer)))
    (let ((written (e2e-file-string toml)))
      (e2e-say "     Vox.toml: %S" written)
      (e2e-check (equal written "[run.greet]\nscript = \"greet.vox\"\ncaps = [\"env:ro\", \"fs:ro=data\", \"time:real\"]\n")
                 "Vox.toml holds %S" written))))

(e2e-step "run (vox.run): the output is in the log (window/logMessage, eglot's events buffer)"
  ;; eglot's file watcher tells the server about the new Vox.toml; the run then uses its entry.
  (e2e-wait "workspace/didChangeWatchedFiles for Vox.toml"
            (lambda () (e2e-client-notified-p "workspace/didChangeWatchedFiles" "Vox.toml")))
  (with-current-buffer (find-buffer-visiting e2e-script)
    (let* ((said (vox-run))             ; M-x vox-run
           (id (and (string-match "\\`\\[vox\\] run \\([0-9]+\\) started" said)
                    (string-to-number (match-string 1 said))))
           (_ (e2e-check (integerp id) "M-x vox-run said %S" said))
           (end (format "vox run %s ended: exit 0" id))
           (log (e2e-wait (format "\"%s\" in the log" end)
                          (lambda () (let ((l (e2e-log-messages))) (and (member end l) l)))))
           (lines (apply #'append (mapcar (lambda (m) (split-string m "\n")) log))))
      (dolist (l log) (e2e-say "     log: %s" l))
      (dolist (want (list (format "vox run %s: greet.vox with run configuration `greet` (Vox.toml): --caps env:ro fs:ro=data time:real" id)
                          "vox demo: starting"
                          "Hello, ann"))
        (e2e-check (member want lines) "%S is not in the log" want))
      (e2e-check (cl-some (lambda (l) (string-match-p "\\`at [0-9]+\\'" l)) lines)
                 "stamp()'s line is not in the log"))))

(e2e-step "show caps (vox.showCaps): window/showMessage in *Messages*"
  (with-current-buffer (find-buffer-visiting e2e-script)
    (let ((result (vox-show-caps))     ; M-x vox-show-caps
          (want "greet.vox needs env:ro (env.get), fs:ro=data (fs.read), time:real (time.now_ms)"))
      (e2e-check (equal (plist-get result :tokens) ["env:ro" "fs:ro=data" "time:real"])
                 "vox.showCaps answered %S" result)
      (condition-case err
          (e2e-wait (format "%S in *Messages*" want)
                    (lambda () (with-current-buffer (messages-buffer)
                                 (save-excursion (goto-char (point-min)) (search-forward want nil t)))))
        (error (error "%s; *Messages* ends with: %s" (error-message-string err)
                      (with-current-buffer (messages-buffer)
                        (buffer-substring (max (point-min) (- (point-max) 600)) (point-max)))))))))

(when (and (> e2e-failed 0) e2e-server (getenv "VOX_E2E_EVENTS"))
  ;; For run.sh to show: what went over the wire.
  (with-current-buffer (jsonrpc-events-buffer e2e-server)
    (write-region nil nil (getenv "VOX_E2E_EVENTS") nil 'quiet)))

;; What eglot-shutdown sends (shutdown, exit), without its kill a moment later (jsonrpc-shutdown
;; deletes the process at once in Emacs 28): the server must end by itself, with status 0.
(e2e-step "shutdown: shutdown and exit end the server with status 0"
  (let ((proc (jsonrpc--process e2e-server)))
    (setf (eglot--shutdown-requested e2e-server) t)
    (jsonrpc-request e2e-server :shutdown nil)
    (jsonrpc-notify e2e-server :exit nil)
    (e2e-wait "the server's exit" (lambda () (not (process-live-p proc))))
    (e2e-check (and (eq (process-status proc) 'exit) (= (process-exit-status proc) 0))
               "vox lsp ended with %s %s" (process-status proc) (process-exit-status proc))))

(when (> e2e-unstuck 0)
  (e2e-say "     (%d times, messages waited behind a response in eglot's process buffer: see e2e-unstick)"
           e2e-unstuck))
(e2e-say "%d passed, %d failed" e2e-passed e2e-failed)
(kill-emacs (if (= e2e-failed 0) 0 1))
