// Makes `require('vscode')` and `require('vscode-languageclient/node')` load the mocks, so the compiled
// extension (out/) runs under node's test runner without VS Code.
'use strict';

const Module = require('module');
const path = require('path');

const MOCKS = {
  vscode: path.join(__dirname, 'vscode.js'),
  'vscode-languageclient/node': path.join(__dirname, 'languageclient.js'),
};
const original = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (Object.prototype.hasOwnProperty.call(MOCKS, request)) return MOCKS[request];
  return original.call(this, request, ...rest);
};

module.exports = {
  vscode: require(MOCKS.vscode),
  lc: require(MOCKS['vscode-languageclient/node']),
  out: (name) => require(path.join(__dirname, '..', '..', 'out', name)),
};
