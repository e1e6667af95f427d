// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IIntentLedger, Intent, IntentStatus} from "./IntentTypes.sol";
import {IntentLedger} from "./IntentLedger.sol";
import {IntentValidator} from "./IntentValidator.sol";
import {PolicyRegistry} from "./PolicyRegistry.sol";

/// @notice Executes validated intents, paid from deposits held here. Only the sender authorizes an
/// execution: by calling `execute` itself, or by an EIP-712 signature (its own, through ERC-1271
/// for a contract account, or a delegate's of the intent's policy) that anyone may relay through
/// `executeSigned`. Each (sender, nonce) executes at most once, and a sender may cancel a nonce.
/// Version 2: nonces, deposits' accounting and policy spending live in the IntentLedger this
/// executor creates, which EIP-7702 accounts (IntentAccount) share, so a nonce spent or cancelled
/// in either mode is spent or cancelled in both. The ETH of deposits stays here. There is no
/// owner: the ledger and the validator are created with the executor and can never be replaced.
/// Version 3: the ledger keeps 128 nonces to a storage word (same ABI, ~17,000 gas less per intent
/// whose nonce follows one already spent in its word); a new build deploys at new addresses.
contract IntentExecutor is EIP712, ReentrancyGuard, IIntentLedger {
    bytes32 public constant INTENT_TYPEHASH = keccak256(
        "Intent(address sender,address target,bytes data,uint256 value,uint256 nonce,uint256 validAfter,uint256 validBefore,bytes32 policyId)"
    );

    PolicyRegistry public immutable registry;
    IntentLedger public immutable ledger;
    IntentValidator public immutable validator;

    event IntentExecuted(bytes32 indexed intentHash, bytes1 status, address indexed executor, bytes returnData);
    event NonceCancelled(address indexed sender, uint256 indexed nonce);
    event Deposited(address indexed sender, address indexed from, uint256 amount);
    event Withdrawn(address indexed sender, uint256 amount);

    error ExecutionDenied(bytes1 status);
    error ExecutionFailed(bytes1 status, bytes data);
    error InsufficientDeposit(uint256 available, uint256 requested);
    error WithdrawFailed();

    constructor(PolicyRegistry registry_) EIP712("IntentExecutor", "1") {
        registry = registry_;
        ledger = new IntentLedger(registry_, address(this));
        validator = new IntentValidator(registry_, this, ledger);
    }

    function deposit() external payable {
        _credit(msg.sender);
    }

    function depositFor(address sender) external payable {
        _credit(sender);
    }

    function withdraw(uint256 amount) external nonReentrant {
        ledger.debit(msg.sender, amount);
        emit Withdrawn(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert WithdrawFailed();
    }

    function deposits(address sender) external view returns (uint256) {
        return ledger.deposits(sender);
    }

    function policySpent(bytes32 policyId) external view returns (uint256) {
        return ledger.policySpent(policyId);
    }

    function nonceUsed(address sender, uint256 nonce) external view returns (bool) {
        return ledger.nonceUsed(sender, nonce);
    }

    function nonceCancelled(address sender, uint256 nonce) external view returns (bool) {
        return ledger.nonceCancelled(sender, nonce);
    }

    /// @notice Makes one of the caller's nonces unusable, in both modes: an intent signed with it never runs.
    function cancelNonce(uint256 nonce) external {
        ledger.cancelNonce(msg.sender, nonce);
        emit NonceCancelled(msg.sender, nonce);
    }

    /// @notice The EIP-712 digest a sender (or a delegate) signs for `intent`.
    function signingHash(Intent calldata intent) public view returns (bytes32) {
        return _hashTypedDataV4(
            keccak256(
                abi.encode(
                    INTENT_TYPEHASH,
                    intent.sender,
                    intent.target,
                    keccak256(intent.data),
                    intent.value,
                    intent.nonce,
                    intent.validAfter,
                    intent.validBefore,
                    intent.policyId
                )
            )
        );
    }

    /// @notice Whether `signature` authorizes `intent`: an ECDSA signature (65 or 64 bytes, low s)
    /// by the sender's key, an ERC-1271 signature the sender contract accepts, or an ECDSA
    /// signature by a delegate of the intent's policy, which the sender must own.
    function isAuthorized(Intent calldata intent, bytes calldata signature) public view returns (bool) {
        bytes32 digest = signingHash(intent);
        (uint8 v, bytes32 r, bytes32 s) = ECDSA.parseCalldata(signature);
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(digest, v, r, s);
        bool recovered = err == ECDSA.RecoverError.NoError;
        if (recovered && signer == intent.sender) return true;
        if (intent.sender.code.length > 0 && SignatureChecker.isValidERC1271SignatureNow(intent.sender, digest, signature)) {
            return true;
        }
        return recovered && registry.isDelegate(intent.policyId, intent.sender, signer);
    }

    /// @notice What `executeSigned(intent, signature)` would answer now, as one ERC-1066 code:
    /// 0xE4 for a signature that does not authorize the intent, else the validator's code.
    function checkSigned(Intent calldata intent, bytes calldata signature) external view returns (bytes1) {
        if (!isAuthorized(intent, signature)) return IntentStatus.UNTRUSTED;
        return ledger.canExecute(intent);
    }

    /// @notice Runs the intent for its sender, who calls this itself. Relayers use `executeSigned`.
    function execute(Intent calldata intent) external payable nonReentrant returns (bytes memory) {
        if (msg.sender != intent.sender) revert ExecutionDenied(IntentStatus.SIGNATURE_REQUIRED);
        return _execute(intent);
    }

    /// @notice Runs `intent.target.call{value: intent.value}(intent.data)` on behalf of the sender,
    /// paid from the sender's deposit, when `signature` authorizes it. Value sent with this call
    /// is credited to the sender first.
    function executeSigned(Intent calldata intent, bytes calldata signature) external payable nonReentrant returns (bytes memory) {
        if (!isAuthorized(intent, signature)) revert ExecutionDenied(IntentStatus.UNTRUSTED);
        return _execute(intent);
    }

    function _execute(Intent calldata intent) private returns (bytes memory) {
        if (msg.value > 0) _credit(intent.sender);
        // Checks the intent and records it (nonce used, deposit and policy spending) before the
        // call, or reverts ExecutionDenied with the same code canExecute answers.
        ledger.useIntent(intent);

        (bool ok, bytes memory returnData) = intent.target.call{value: intent.value}(intent.data);
        if (!ok) revert ExecutionFailed(IntentStatus.TRANSFER_FAILED, returnData);

        emit IntentExecuted(keccak256(abi.encode(intent)), IntentStatus.EXECUTED, msg.sender, returnData);
        return returnData;
    }

    function _credit(address sender) private {
        ledger.credit(sender, msg.value);
        emit Deposited(sender, msg.sender, msg.value);
    }
}
